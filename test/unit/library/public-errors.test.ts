/**
 * One error tree for a program (issue 53): the package's entry exports the base class every error it raises
 * on purpose extends, so a program can tell docextract's errors from any other with `instanceof`, and branch
 * on `code`. Every error class the entry exports is of that tree.
 */
import { describe, expect, it } from 'vitest';
import * as docextract from '../../../src/index.js';

const errorClasses = Object.entries(docextract as Record<string, unknown>).filter(
  (entry): entry is [string, new (...args: never[]) => Error] => typeof entry[1] === 'function' && entry[1].prototype instanceof Error,
);

describe("the package's errors", () => {
  it('are one tree: the entry exports DocextractError, and every error class it exports extends it', () => {
    expect(docextract.DocextractError).toBeDefined();
    expect(errorClasses.length).toBeGreaterThan(5);
    for (const [name, errorClass] of errorClasses) {
      if (name === 'DocextractError') continue;
      expect(errorClass.prototype instanceof docextract.DocextractError, `${name} extends DocextractError`).toBe(true);
    }
  });

  it('a bad option a program passes is caught as a DocextractError with its code', () => {
    try {
      docextract.extractDocuments(['.'], { apiKey: 'sk_nope', out: 'out' });
      expect.fail('the options should have been refused');
    } catch (error) {
      expect(error).toBeInstanceOf(docextract.DocextractError);
      expect(docextract.errorCodeOf(error)).toBe('invalid_api_key');
    }
  });
});
