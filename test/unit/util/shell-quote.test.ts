import { describe, expect, it } from 'vitest';
import { shellQuote, suggestedCommand } from '../../../src/util/shell-quote.js';
import { HOSTILE_WORDS, RAW_CONTROL, wordsParsedBy } from '../../helpers/shell-words.js';

describe('shellQuote: a word a POSIX shell reads back as itself', () => {
  it('leaves a word of safe characters bare, and single-quotes any other', () => {
    expect(shellQuote('job_0a1b2c3d4e5f60718293a4b5')).toBe('job_0a1b2c3d4e5f60718293a4b5');
    expect(shellQuote('in/x-1.pdf')).toBe('in/x-1.pdf');
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('$(id)')).toBe("'$(id)'");
    expect(shellQuote('')).toBe("''");
  });

  it("writes a control character as an escape in $'…', never raw", () => {
    expect(shellQuote('a\nb')).toBe("$'a\\nb'");
    expect(shellQuote("it's\t\\")).toBe("$'it\\'s\\t\\\\'");
    expect(shellQuote('\u202E')).toBe("$'\\xe2\\x80\\xae'");
    for (const word of HOSTILE_WORDS) expect(shellQuote(word), JSON.stringify(word)).not.toMatch(RAW_CONTROL);
  });

  // zsh, a Debian package .ci/run installs after npm test, reads them too: test/shells/shell-quote.test.ts.
  it('bash reads each hostile word back as itself, one word each', () => {
    expect(wordsParsedBy('bash', suggestedCommand(HOSTILE_WORDS))).toEqual(HOSTILE_WORDS);
  });

  it("sh (dash, which has no $'…') reads back each word without a control character", () => {
    const printable = HOSTILE_WORDS.filter((word) => !RAW_CONTROL.test(word));
    expect(wordsParsedBy('sh', suggestedCommand(printable))).toEqual(printable);
  });

  it('a suggested command is its words, each quoted', () => {
    expect(suggestedCommand(['docextract', 'collect', 'job_1'])).toBe('docextract collect job_1');
    expect(suggestedCommand(['docextract', 'extract', 'my files/*.pdf'])).toBe("docextract extract 'my files/*.pdf'");
  });
});
