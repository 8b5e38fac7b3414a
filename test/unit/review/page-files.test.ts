import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PAGE_FILE_NAMES, PAGE_FOLDER, pageFile } from '../../../src/review/page-files.js';

describe("the review page's files", () => {
  it('serves each file of the page folder from disk, and nothing else', () => {
    expect([...PAGE_FILE_NAMES].sort()).toEqual(readdirSync(PAGE_FOLDER).sort());
    for (const name of PAGE_FILE_NAMES) expect(existsSync(pageFile(name)?.path ?? ''), name).toBe(true);
    for (const name of ['../review/page-files.ts', 'page/app.js', 'README.md', '']) expect(pageFile(name), name).toBeUndefined();
  });

  it('has every script checked by tsc (tsconfig.page.json)', () => {
    for (const name of PAGE_FILE_NAMES.filter((file) => file.endsWith('.js')))
      expect(readFileSync(pageFile(name)?.path ?? '', 'utf8'), name).toMatch(/^\/\/ @ts-check\n/);
  });
});
