import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ResultsIndex } from '../../../src/store/results-index.js';

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'results-index-'));
  path = join(dir, 'results.ndjson');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('ResultsIndex', () => {
  it('starts empty when its file is missing, and remembers what it is told across opens', async () => {
    const index = await ResultsIndex.open(path);
    expect(index.size).toBe(0);
    await index.set('q1', '/out/a.json');
    await index.set('q2', '/out/b.json');
    await index.set('q1', '/out/a2.json');
    await index.forget('q2');
    await index.markScanned('/out');
    const again = await ResultsIndex.open(path);
    expect(again.get('q1')).toBe('/out/a2.json');
    expect(again.get('q2')).toBeUndefined();
    expect(again.hasScanned('/out')).toBe(true);
    expect(again.hasScanned('/elsewhere')).toBe(false);
  });

  it('keeps at most its capacity, forgetting the least recently written first', async () => {
    const index = await ResultsIndex.open(path, { capacity: 3 });
    for (const key of ['a', 'b', 'c']) await index.set(key, `/out/${key}.json`);
    await index.set('a', '/out/a-again.json');
    await index.set('d', '/out/d.json');
    expect(index.size).toBe(3);
    expect(index.get('b')).toBeUndefined();
    expect(index.get('a')).toBe('/out/a-again.json');
    const reopened = await ResultsIndex.open(path, { capacity: 3 });
    expect([reopened.get('a'), reopened.get('b'), reopened.get('c'), reopened.get('d')]).toEqual(['/out/a-again.json', undefined, '/out/c.json', '/out/d.json']);
  });

  it('skips a line cut short by a crash and anything else unreadable', async () => {
    writeFileSync(path, '{"k":"q1","p":"/out/a.json"}\nnot json\n{"k":42,"p":"x"}\n{"k":"q3","p":42}\n{"k":"q2","p":"/out/b.js');
    const index = await ResultsIndex.open(path);
    expect(index.size).toBe(1);
    expect(index.get('q1')).toBe('/out/a.json');
  });

  it('does not write a line for what it already knows', async () => {
    const index = await ResultsIndex.open(path);
    await index.set('q1', '/out/a.json');
    await index.set('q1', '/out/a.json');
    await index.forget('nothing');
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('writes a scanned folder once', async () => {
    const index = await ResultsIndex.open(path);
    await index.markScanned('/out');
    await index.markScanned('/out');
    expect(readFileSync(path, 'utf8')).toBe('{"scanned":"/out"}\n');
  });

  it('a path it cannot read as a file is an error; only a missing file is an empty index', async () => {
    await expect(ResultsIndex.open(dir)).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it('compacts only past twice its live entries and scanned folders plus 1,000 lines, and keeps both', async () => {
    // Live: one entry and one scanned folder, so the file may hold 2 * 2 + 1,000 = 1,004 lines.
    appendFileSync(path, `${JSON.stringify({ scanned: '/out' })}\n`);
    for (let i = 0; i < 1_003; i++) appendFileSync(path, `${JSON.stringify({ k: 'same', p: `/out/${i}.json` })}\n`);
    const atLimit = await ResultsIndex.open(path);
    await atLimit.compact();
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(1_004);

    // One more line, written through the index (appends count too): now it compacts.
    await atLimit.set('same', '/out/last.json');
    await atLimit.compact();
    expect(readFileSync(path, 'utf8')).toBe('{"scanned":"/out"}\n{"k":"same","p":"/out/last.json"}\n');
    const reopened = await ResultsIndex.open(path);
    expect(reopened.hasScanned('/out')).toBe(true);
    expect(reopened.get('same')).toBe('/out/last.json');
  });

  it('compacts its file to the live entries when dead lines dominate it', async () => {
    for (let i = 0; i < 1_200; i++) appendFileSync(path, `${JSON.stringify({ k: 'same', p: `/out/${i}.json` })}\n`);
    const index = await ResultsIndex.open(path);
    await index.compact();
    expect(readFileSync(path, 'utf8').trim().split('\n')).toEqual(['{"k":"same","p":"/out/1199.json"}']);
    expect((await ResultsIndex.open(path)).get('same')).toBe('/out/1199.json');
  });
});
