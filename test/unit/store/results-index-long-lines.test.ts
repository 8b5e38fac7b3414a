/**
 * A results-index line as long as a path can make it: the index reads a
 * line back in a first 512 bytes and must read a longer one whole, and its
 * load and compaction stream the file in chunks (64 KiB) that a line may
 * span. Each line here is longer than the first read, some longer than a
 * stream chunk, with characters of 2 to 4 bytes that the read boundaries
 * cut through.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ResultsIndex } from '../../../src/store/results-index.js';

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'results-index-long-'));
  path = join(dir, 'results.ndjson');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A path of about `bytes` UTF-8 bytes, with 1-, 2-, 3- and 4-byte characters in turn (so boundaries fall inside them). */
function longPath(label: string, bytes: number): string {
  const pieces = ['a', 'é', '文', '📄'];
  const parts = [`/out/${label}/`];
  for (let i = 0, length = Buffer.byteLength(parts[0]!); length < bytes; i++) {
    const piece = i % 97 === 96 ? '/' : pieces[i % pieces.length]!;
    parts.push(piece);
    length += Buffer.byteLength(piece);
  }
  return `${parts.join('')}.json`;
}

/** Lines just past the first read (512 bytes), several times it, and past one and several stream chunks (64 KiB). */
const SIZES = [513, 600, 2_047, 2_048, 2_049, 8_200, 65_536, 70_000, 300_000];

describe('ResultsIndex: lines longer than any read buffer', () => {
  it('answers with the whole path of each long line: as written, after a reopen, and after a compaction', async () => {
    const index = await ResultsIndex.open(path);
    const expected = new Map<string, string>();
    for (const size of SIZES) {
      const key = `key-${size}`;
      expected.set(key, longPath(String(size), size));
      await index.set(key, expected.get(key)!);
      // A short line after each long one: its offset is counted past the long line's every byte.
      expected.set(`short-${size}`, `/out/short-${size}.json`);
      await index.set(`short-${size}`, `/out/short-${size}.json`);
    }
    // A long key too, whose line names it (a hash match alone answers nothing).
    const longKey = `${'k'.repeat(5_000)}文`;
    expected.set(longKey, longPath('long-key', 1_000));
    await index.set(longKey, expected.get(longKey)!);

    const check = async (opened: ResultsIndex): Promise<void> => {
      for (const [key, value] of expected) expect(await opened.get(key), `${key.slice(0, 20)} (${Buffer.byteLength(value)} bytes)`).toBe(value);
    };
    await check(index);
    // set() of what it already holds reads the long line back whole: nothing new is appended.
    const before = readFileSync(path).length;
    for (const [key, value] of expected) await index.set(key, value);
    expect(readFileSync(path).length).toBe(before);

    const reopened = await ResultsIndex.open(path);
    expect(reopened.size).toBe(expected.size);
    await check(reopened);

    // Enough dead lines to compact: the long live lines are copied whole, the offsets follow them.
    for (let i = 0; i < 1_200; i++) await reopened.set('churn', `/out/churn-${i}.json`);
    await reopened.forget('churn');
    await reopened.compact();
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(expected.size);
    await check(reopened);
    await check(await ResultsIndex.open(path));
  });
});
