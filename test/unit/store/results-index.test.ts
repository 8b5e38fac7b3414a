import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
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
    expect(await again.get('q1')).toBe('/out/a2.json');
    expect(await again.get('q2')).toBeUndefined();
    expect(again.hasScanned('/out')).toBe(true);
    expect(again.hasScanned('/elsewhere')).toBe(false);
  });

  it('keeps at most its capacity, forgetting the least recently written first', async () => {
    const index = await ResultsIndex.open(path, { capacity: 3 });
    for (const key of ['a', 'b', 'c']) await index.set(key, `/out/${key}.json`);
    await index.set('a', '/out/a-again.json');
    await index.set('d', '/out/d.json');
    expect(index.size).toBe(3);
    expect(await index.get('b')).toBeUndefined();
    expect(await index.get('a')).toBe('/out/a-again.json');
    const reopened = await ResultsIndex.open(path, { capacity: 3 });
    expect(await Promise.all(['a', 'b', 'c', 'd'].map((key) => reopened.get(key)))).toEqual(['/out/a-again.json', undefined, '/out/c.json', '/out/d.json']);
  });

  it('skips a line cut short by a crash and anything else unreadable', async () => {
    writeFileSync(path, '{"k":"q1","p":"/out/a.json"}\nnot json\n{"k":42,"p":"x"}\n{"k":"q3","p":42}\n{"k":"q2","p":"/out/b.js');
    const index = await ResultsIndex.open(path);
    expect(index.size).toBe(1);
    expect(await index.get('q1')).toBe('/out/a.json');
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
    expect(await reopened.get('same')).toBe('/out/last.json');
  });

  it('compacts its file to the live entries when dead lines dominate it', async () => {
    for (let i = 0; i < 1_200; i++) appendFileSync(path, `${JSON.stringify({ k: 'same', p: `/out/${i}.json` })}\n`);
    const index = await ResultsIndex.open(path);
    await index.compact();
    expect(readFileSync(path, 'utf8').trim().split('\n')).toEqual(['{"k":"same","p":"/out/1199.json"}']);
    expect(await (await ResultsIndex.open(path)).get('same')).toBe('/out/1199.json');
  });

  it('a line cut short by a crash at the end of the file does not swallow the next line written', async () => {
    writeFileSync(path, '{"k":"q1","p":"/out/a.json"}\n{"k":"q2","p":"/out/b.js');
    const index = await ResultsIndex.open(path);
    await index.set('q3', '/out/c.json');
    expect(await index.get('q3')).toBe('/out/c.json');
    const reopened = await ResultsIndex.open(path);
    expect(await Promise.all(['q1', 'q2', 'q3'].map((key) => reopened.get(key)))).toEqual(['/out/a.json', undefined, '/out/c.json']);
  });

  it('reads each answer back from its own line: many keys, rewritten and forgotten, across a compaction and a reopen', async () => {
    const index = await ResultsIndex.open(path);
    const expected = new Map<string, string>();
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 600; i++) {
        const key = `${String(i).padStart(64, 'f')} invoice`;
        if (round === 4 && i % 3 === 0) {
          await index.forget(key);
          expected.delete(key);
        } else {
          await index.set(key, `/out/${round}/${i}.json`);
          expected.set(key, `/out/${round}/${i}.json`);
        }
      }
    }
    const check = async (opened: ResultsIndex): Promise<void> => {
      expect(opened.size).toBe(expected.size);
      for (let i = 0; i < 600; i++) {
        const key = `${String(i).padStart(64, 'f')} invoice`;
        expect(await opened.get(key)).toBe(expected.get(key));
      }
    };
    await check(index);
    await index.compact();
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(expected.size);
    await check(index);
    await index.set('after', '/out/after.json'); // appended at the compacted file's end
    expected.set('after', '/out/after.json');
    expect(await index.get('after')).toBe('/out/after.json');
    await check(await ResultsIndex.open(path));
  });

  it('answers only for the key its line names: a file changed under it is a miss, not a wrong answer', async () => {
    const index = await ResultsIndex.open(path);
    await index.set('q1', '/out/a.json');
    await index.set('q2', '/out/b.json');
    // Another writer rewrote the file: the offsets the index holds now point at other lines.
    writeFileSync(path, '{"k":"q2","p":"/out/elsewhere.json"}\n{"k":"q1","p":"/out/moved.json"}\n');
    expect(await index.get('q1')).toBeUndefined();
    expect(await index.get('q2')).toBeUndefined();
  });

  it('a compaction keeps the newest entries within its capacity, in the order they were written', async () => {
    const index = await ResultsIndex.open(path, { capacity: 400 });
    for (let i = 0; i < 2_500; i++) await index.set(`k${i % 500}`, `/out/${i}.json`);
    await index.compact();
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { k: string; p: string });
    expect(lines.map((line) => line.p)).toEqual(Array.from({ length: 400 }, (_, i) => `/out/${2_100 + i}.json`));
    expect(await index.get('k99')).toBeUndefined();
    expect(await index.get('k100')).toBe('/out/2100.json');
  });

  it('counts the folder marks it rewrote towards the next compaction, and appends after it on a line of its own', async () => {
    appendFileSync(path, `${JSON.stringify({ scanned: '/out' })}\n`);
    for (let i = 0; i < 1_200; i++) appendFileSync(path, `${JSON.stringify({ k: 'same', p: `/out/${i}.json` })}\n`);
    const index = await ResultsIndex.open(path);
    await index.compact();
    await index.set('next', '/out/next.json');
    expect(readFileSync(path, 'utf8')).toBe('{"scanned":"/out"}\n{"k":"same","p":"/out/1199.json"}\n{"k":"next","p":"/out/next.json"}\n');
    // Live: two entries and one folder, so 2 * 3 + 1,000 = 1,006 lines may stand; the file holds 3.
    for (let i = 0; i < 1_003; i++) await index.set('same', `/out/again-${i}.json`);
    await index.compact();
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(1_006);
    await index.set('same', '/out/last.json');
    await index.compact();
    expect(readFileSync(path, 'utf8')).toBe('{"scanned":"/out"}\n{"k":"next","p":"/out/next.json"}\n{"k":"same","p":"/out/last.json"}\n');
  });

  it('drops a line it cannot read when it compacts', async () => {
    for (let i = 0; i < 1_200; i++) appendFileSync(path, `${JSON.stringify({ k: 'same', p: `/out/${i}.json` })}\n`);
    appendFileSync(path, 'not json\n');
    const index = await ResultsIndex.open(path);
    await index.compact();
    expect(readFileSync(path, 'utf8')).toBe('{"k":"same","p":"/out/1199.json"}\n');
  });

  it('appends to a file read back whole on a line of its own, with no blank line before it', async () => {
    writeFileSync(path, '{"k":"q1","p":"/out/a.json"}\n');
    const index = await ResultsIndex.open(path);
    await index.set('q2', '/out/b.json');
    expect(readFileSync(path, 'utf8')).toBe('{"k":"q1","p":"/out/a.json"}\n{"k":"q2","p":"/out/b.json"}\n');
  });

  it('answers nothing, and throws nothing, once its file is gone from under it', async () => {
    const index = await ResultsIndex.open(path);
    await index.set('q1', '/out/a.json');
    rmSync(path);
    expect(await index.get('q1')).toBeUndefined();
  });

  it('has nothing to remove when it never wrote its file', async () => {
    const index = await ResultsIndex.open(path);
    await index.removeIfNoResult();
    expect(existsSync(path)).toBe(false);
  });

  it('removes its file when it names no result, and starts a fresh one at the next answer', async () => {
    // Cut short by a crash, and only folder marks and forgotten entries: nothing in it answers a question.
    writeFileSync(path, '{"scanned":"/out"}\n{"k":"q1","p":"/out/a.json"}\n{"k":"q1","p":null}\n{"k":"q2","p":"/out/b.js');
    const index = await ResultsIndex.open(path);
    await index.removeIfNoResult();
    expect(existsSync(path)).toBe(false);
    expect(index.hasScanned('/out')).toBe(false);

    // The next line starts the new file: read back from its own offset, with no line cut short before it.
    await index.set('q3', '/out/c.json');
    expect(readFileSync(path, 'utf8')).toBe('{"k":"q3","p":"/out/c.json"}\n');
    expect(await index.get('q3')).toBe('/out/c.json');
    expect(await (await ResultsIndex.open(path)).get('q3')).toBe('/out/c.json');
  });

  it('keeps its file while it names a result', async () => {
    const index = await ResultsIndex.open(path);
    await index.markScanned('/out');
    await index.set('q1', '/out/a.json');
    await index.removeIfNoResult();
    expect(readFileSync(path, 'utf8')).toBe('{"scanned":"/out"}\n{"k":"q1","p":"/out/a.json"}\n');
    expect(index.hasScanned('/out')).toBe(true);
    expect(await index.get('q1')).toBe('/out/a.json');
  });

  it('after removing its file, counts only the lines of the new one towards a compaction', async () => {
    for (let i = 0; i < 1_200; i++) appendFileSync(path, `${JSON.stringify({ k: `gone${i}`, p: null })}\n`);
    const index = await ResultsIndex.open(path);
    await index.removeIfNoResult();
    await index.set('q1', '/out/a.json');
    const before = statSync(path).ino;
    await index.compact(); // one line for one live entry: nothing to rewrite
    expect(statSync(path).ino).toBe(before);
  });

  it('holds neither keys nor paths in memory: well under 100 bytes of heap an entry', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    // Enough entries that what the index holds outweighs the heap's noise (tens of KB either way): at 5,000
    // an index that also held the key and path strings measured 450-510 bytes an entry, this one 0-20.
    const entries = 5_000;
    const keyOf = (i: number): string => `${i.toString(16).padStart(64, '0')} invoice-extract-v2`;
    gc();
    const before = process.memoryUsage().heapUsed;
    const index = await ResultsIndex.open(path);
    for (let i = 0; i < entries; i++) await index.set(keyOf(i), `/home/someone/archive/out/folder-${i % 100}/scan-${i}.pdf.json`);
    gc();
    const perEntry = (process.memoryUsage().heapUsed - before) / entries;
    expect(index.size).toBe(entries);
    expect(await index.get(keyOf(1_234))).toBe('/home/someone/archive/out/folder-34/scan-1234.pdf.json');
    // The key and the path alone are ~170 bytes as strings; a map of them held ~260.
    expect(perEntry).toBeLessThan(100);
  });
});
