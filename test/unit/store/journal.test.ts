import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Journal, JournalCorruptError } from '../../../src/store/journal.js';

type Rec = { type: 'intent'; id: string } | { type: 'outcome'; id: string; ok: boolean; note?: string };

/** Read a journal's records and close it again (an open handle left to the GC is a leak). */
async function recordsOf(path: string): Promise<readonly Rec[]> {
  const journal = await Journal.open<Rec>(path);
  await journal.close();
  return journal.records;
}

describe('Journal', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'journal-'));
    path = join(dir, 'state', 'journal.ndjson');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('compactWith chooses what to keep after every append queued before it, so a journal in use loses none', async () => {
    const journal = await Journal.open<Rec>(path);
    await journal.append({ type: 'intent', id: 'done' });
    const queued = journal.append({ type: 'intent', id: 'queued' }); // not yet written when the compaction is asked for
    const compacted = journal.compactWith((records) => records.filter((record) => record.id !== 'done'));
    const later = journal.append({ type: 'intent', id: 'later' });
    await Promise.all([queued, compacted, later]);
    expect(journal.records.map((record) => record.id)).toEqual(['queued', 'later']);
    await journal.close();
    expect((await recordsOf(path)).map((record) => record.id)).toEqual(['queued', 'later']);
  });

  it('creates its folder, appends one JSON line per record, and reads them back on reopen', async () => {
    const journal = await Journal.open<Rec>(path);
    expect(journal.records).toEqual([]);
    await journal.append({ type: 'intent', id: 'a' });
    await journal.appendMany([
      { type: 'outcome', id: 'a', ok: true, note: 'two\nlines' },
      { type: 'intent', id: 'b' },
    ]);
    expect(journal.records).toHaveLength(3);
    await journal.close();

    expect(readFileSync(path, 'utf8').split('\n')).toEqual([
      '{"type":"intent","id":"a"}',
      '{"type":"outcome","id":"a","ok":true,"note":"two\\nlines"}',
      '{"type":"intent","id":"b"}',
      '',
    ]);
    const again = await Journal.open<Rec>(path);
    expect(again.records).toEqual([
      { type: 'intent', id: 'a' },
      { type: 'outcome', id: 'a', ok: true, note: 'two\nlines' },
      { type: 'intent', id: 'b' },
    ]);
    await again.close();
  });

  it('keeps file order when appends race', async () => {
    const journal = await Journal.open<Rec>(path);
    await Promise.all(Array.from({ length: 50 }, (_, i) => journal.append({ type: 'intent', id: String(i) })));
    await journal.close();
    const ids = (await recordsOf(path)).map((r) => r.id);
    expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
  });

  it.each([
    ['a line cut short by kill -9', '{"type":"outcome","id":"a","o'],
    ['a complete-looking line without its newline', '{"type":"outcome","id":"a","ok":true}'],
    ['zero bytes left by an OS crash', '\0\0\0\0\0\0'],
    ['garbage then more garbage', 'xx\n\0\0\n{"type":'],
  ])('tolerates a torn tail (%s) and truncates it away', async (_name, tail) => {
    const good = '{"type":"intent","id":"a"}\n';
    writeFileSync(join(dir, 'j.ndjson'), good + tail);
    const journal = await Journal.open<Rec>(join(dir, 'j.ndjson'));
    expect(journal.records).toEqual([{ type: 'intent', id: 'a' }]);
    expect(readFileSync(join(dir, 'j.ndjson'), 'utf8')).toBe(good);
    await journal.append({ type: 'intent', id: 'b' });
    await journal.close();
    expect((await recordsOf(join(dir, 'j.ndjson'))).map((r) => r.id)).toEqual(['a', 'b']);
  });

  it('refuses a journal damaged in the middle rather than silently dropping records', async () => {
    writeFileSync(join(dir, 'j.ndjson'), '{"type":"intent","id":"a"}\nnot json\n{"type":"intent","id":"b"}\n');
    await expect(Journal.open<Rec>(join(dir, 'j.ndjson'))).rejects.toThrow(JournalCorruptError);
    await expect(Journal.open<Rec>(join(dir, 'j.ndjson'))).rejects.toThrow(/line 2/);
  });

  it('compacts atomically to the records it is told to keep, and keeps appending after', async () => {
    const journal = await Journal.open<Rec>(path);
    await journal.appendMany([
      { type: 'intent', id: 'done' },
      { type: 'outcome', id: 'done', ok: true },
      { type: 'intent', id: 'open' },
    ]);
    await journal.compact([{ type: 'intent', id: 'open' }]);
    await journal.append({ type: 'outcome', id: 'open', ok: false });
    expect(journal.records).toEqual([
      { type: 'intent', id: 'open' },
      { type: 'outcome', id: 'open', ok: false },
    ]);
    await journal.close();
    expect(readFileSync(path, 'utf8')).toBe('{"type":"intent","id":"open"}\n{"type":"outcome","id":"open","ok":false}\n');
    expect(readdirSync(join(dir, 'state'))).toEqual(['journal.ndjson']);
  });

  describe('close({ removeIfEmpty })', () => {
    it('removes a journal this open made and nothing was written to', async () => {
      await (await Journal.open<Rec>(path)).close({ removeIfEmpty: true });
      expect(existsSync(path)).toBe(false);
    });

    it('keeps one that was there before, empty as it is', async () => {
      await (await Journal.open<Rec>(path)).close();
      await (await Journal.open<Rec>(path)).close({ removeIfEmpty: true });
      expect(existsSync(path)).toBe(true);
    });

    it('keeps one that holds a record', async () => {
      const journal = await Journal.open<Rec>(path);
      await journal.append({ type: 'intent', id: 'open' });
      await journal.close({ removeIfEmpty: true });
      expect(readFileSync(path, 'utf8')).toBe('{"type":"intent","id":"open"}\n');
    });

    it('removes one whose records were all compacted away', async () => {
      const journal = await Journal.open<Rec>(path);
      await journal.append({ type: 'intent', id: 'done' });
      await journal.compact([]);
      await journal.close({ removeIfEmpty: true });
      expect(existsSync(path)).toBe(false);
    });

    it('keeps it unless asked, or when asked not to', async () => {
      await (await Journal.open<Rec>(path)).close();
      expect(existsSync(path)).toBe(true);
      rmSync(path);
      await (await Journal.open<Rec>(path)).close({ removeIfEmpty: false });
      expect(existsSync(path)).toBe(true);
    });
  });

  it('rejects appends after close', async () => {
    const journal = await Journal.open<Rec>(path);
    await journal.close();
    await expect(journal.append({ type: 'intent', id: 'x' })).rejects.toThrow(/closed/);
  });

  it('ignores blank lines a hand edit may leave', async () => {
    writeFileSync(path.replace('state/journal.ndjson', 'j.ndjson'), '\n{"type":"intent","id":"a"}\n\n');
    appendFileSync(join(dir, 'j.ndjson'), '{"type":"intent","id":"b"}\n');
    const journal = await Journal.open<Rec>(join(dir, 'j.ndjson'));
    expect(journal.records.map((r) => r.id)).toEqual(['a', 'b']);
    await journal.close();
  });
});

describe('Journal.compact failure', () => {
  it('leaves the journal intact and appendable when the rewrite fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    try {
      const path = join(dir, 'journal.ndjson');
      const journal = await Journal.open<Rec>(path);
      await journal.append({ type: 'intent', id: 'a' });
      // Put a non-empty folder where the file is, so the rewrite's rename fails (EISDIR, even as root).
      rmSync(path);
      mkdirSync(path);
      writeFileSync(join(path, 'occupant'), 'x');
      await expect(journal.compact([])).rejects.toMatchObject({ code: 'EISDIR' });
      expect(journal.records).toEqual([{ type: 'intent', id: 'a' }]);
      await journal.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Journal details', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'journal-'));
  });
  afterEach(() => {
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The prototype of node's FileHandle (not exported), to watch its methods. */
  async function fileHandlePrototype(): Promise<{ sync: () => Promise<void>; datasync: () => Promise<void>; writeFile: (data: string) => Promise<void> }> {
    const probe = await open(join(dir, 'probe'), 'w');
    await probe.close();
    return Object.getPrototypeOf(probe) as never;
  }

  it('names the damage: its class, the file and the 1-based line', async () => {
    const path = join(dir, 'j.ndjson');
    writeFileSync(path, '{"type":"intent","id":"a"}\n{"type":"intent"\n{"type":"intent","id":"b"}\n');
    const error = await Journal.open<Rec>(path).catch((caught: unknown) => caught as JournalCorruptError);
    expect(error).toBeInstanceOf(JournalCorruptError);
    expect(error).toMatchObject({ name: 'JournalCorruptError', path, line: 2 });
    expect((error as Error).message).toBe(`Journal ${path} is damaged at line 2: not a JSON record, and more records follow it`);
  });

  it.each(['null', '[]', '"intent"', '{"id":"x"}', '{"type":5}'])('takes %s for damage, not a record', async (line) => {
    const path = join(dir, 'j.ndjson');
    writeFileSync(path, `{"type":"intent","id":"a"}\n${line}\n{"type":"intent","id":"b"}\n`);
    await expect(Journal.open<Rec>(path)).rejects.toThrow(JournalCorruptError);
  });

  it('skips a line of blanks as it skips an empty one', async () => {
    const path = join(dir, 'j.ndjson');
    writeFileSync(path, '{"type":"intent","id":"a"}\n   \n{"type":"intent","id":"b"}\n');
    expect((await recordsOf(path)).map((r) => (r as { id: string }).id)).toEqual(['a', 'b']);
  });

  it('does not take a folder for a missing journal', async () => {
    mkdirSync(join(dir, 'j.ndjson'));
    await expect(Journal.open<Rec>(join(dir, 'j.ndjson'))).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it("makes a new journal's name durable, and a cut-off tail's truncation", async () => {
    const handles = await fileHandlePrototype();
    const sync = vi.spyOn(handles, 'sync');
    const datasync = vi.spyOn(handles, 'datasync');
    const path = join(dir, 'j.ndjson');
    await (await Journal.open<Rec>(path)).close();
    expect([sync.mock.calls.length, datasync.mock.calls.length]).toEqual([1, 0]); // the folder, for the new name
    appendFileSync(path, '{"type":"intent","id":"a"}\n{"type":"int');
    await (await Journal.open<Rec>(path)).close();
    expect([sync.mock.calls.length, datasync.mock.calls.length]).toEqual([1, 1]); // the truncation
    await (await Journal.open<Rec>(path)).close();
    expect([sync.mock.calls.length, datasync.mock.calls.length]).toEqual([1, 1]); // nothing to make durable
    expect(readFileSync(path, 'utf8')).toBe('{"type":"intent","id":"a"}\n');
  });

  it('cuts a failed append back to the records before it, so the next append starts a clean line', async () => {
    const handles = await fileHandlePrototype();
    const path = join(dir, 'j.ndjson');
    const journal = await Journal.open<Rec>(path);
    await journal.append({ type: 'intent', id: 'a' });
    const realWrite = handles.writeFile;
    vi.spyOn(handles, 'writeFile').mockImplementationOnce(async function (this: unknown) {
      await realWrite.call(this, '{"type":"inte');
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    });
    await expect(journal.append({ type: 'intent', id: 'b' })).rejects.toMatchObject({ code: 'ENOSPC' });
    await journal.append({ type: 'intent', id: 'c' });
    await journal.close();
    expect(readFileSync(path, 'utf8')).toBe('{"type":"intent","id":"a"}\n{"type":"intent","id":"c"}\n');
  });

  it('compacts several records to whole lines, and may be closed twice', async () => {
    const path = join(dir, 'j.ndjson');
    const journal = await Journal.open<Rec>(path);
    await journal.compact([
      { type: 'intent', id: 'x' },
      { type: 'intent', id: 'y' },
    ]);
    await journal.close();
    await journal.close();
    expect(readFileSync(path, 'utf8')).toBe('{"type":"intent","id":"x"}\n{"type":"intent","id":"y"}\n');
  });
});
