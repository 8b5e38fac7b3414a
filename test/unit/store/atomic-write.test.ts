import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { reserveTempPath, sweepTempFiles, syncFolder, writeFileAtomically, writeFileAtomicallySync } from '../../../src/store/atomic-write.js';

/** A pid that certainly belonged to a process which has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.pid === undefined) throw new Error('could not spawn a child');
  return child.pid;
}

describe('writeFileAtomically', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'atomic-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the content, creating parent folders, and leaves no tmp file', async () => {
    const path = join(dir, 'a', 'b', 'result.json');
    await writeFileAtomically(path, '{"ok":true}\n');
    expect(readFileSync(path, 'utf8')).toBe('{"ok":true}\n');
    expect(readdirSync(join(dir, 'a', 'b'))).toEqual(['result.json']);
  });

  it('replaces an existing file whole, bytes included', async () => {
    const path = join(dir, 'result.bin');
    writeFileSync(path, 'old content that is longer');
    await writeFileAtomically(path, new Uint8Array([1, 2, 3]));
    expect([...readFileSync(path)]).toEqual([1, 2, 3]);
    expect(readdirSync(dir)).toEqual(['result.bin']);
  });

  it('removes its tmp file and throws the fs error untouched when the rename fails', async () => {
    // A non-empty folder where the file should go: the tmp file is written,
    // then rename() fails (EISDIR) — and even root cannot override that.
    const path = join(dir, 'result.json');
    mkdirSync(path);
    writeFileSync(join(path, 'occupant'), 'x');
    await expect(writeFileAtomically(path, 'data')).rejects.toMatchObject({ code: 'EISDIR', syscall: 'rename' });
    expect(readdirSync(dir)).toEqual(['result.json']);
  });

  it('throws the fs error untouched when a parent is a regular file', async () => {
    writeFileSync(join(dir, 'file'), 'x');
    // Node's recursive mkdir reports EEXIST naming the file in the way (ENOTDIR on some versions).
    await expect(writeFileAtomically(join(dir, 'file', 'result.json'), 'data')).rejects.toMatchObject({
      code: expect.stringMatching(/^(EEXIST|ENOTDIR)$/),
      path: expect.stringContaining('file'),
    });
    expect(readdirSync(dir)).toEqual(['file']);
  });

  it('writes a result whose name is 250 bytes (its tmp name cut short to fit NAME_MAX), in both twins, and two such names stay apart', async () => {
    // 200 bytes of two-byte characters then 50 bytes: the cut must fall on a character boundary.
    const long = `${'é'.repeat(100)}${'x'.repeat(45)}.json`;
    const other = `${'é'.repeat(100)}${'x'.repeat(44)}y.json`;
    expect(Buffer.byteLength(long)).toBe(250);
    await writeFileAtomically(join(dir, long), 'one');
    writeFileAtomicallySync(join(dir, other), 'two');
    expect(readFileSync(join(dir, long), 'utf8')).toBe('one');
    expect(readFileSync(join(dir, other), 'utf8')).toBe('two');
    expect(readdirSync(dir).sort()).toEqual([long, other].sort());
    const tmp = reserveTempPath(join(dir, long));
    tmp.release();
    const name = tmp.path.slice(dir.length + 1);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
    expect(name).not.toContain('\ufffd');
    expect(name).not.toBe(reserveTempPath(join(dir, other)).path.slice(dir.length + 1));
  });

  it('writes text as UTF-8, in both twins', async () => {
    await writeFileAtomically(join(dir, 'async.txt'), 'héllo → wörld');
    writeFileAtomicallySync(join(dir, 'sync.txt'), 'héllo → wörld');
    expect(readFileSync(join(dir, 'async.txt'), 'utf8')).toBe('héllo → wörld');
    expect(readFileSync(join(dir, 'sync.txt'), 'utf8')).toBe('héllo → wörld');
  });

  it('fsyncs the file and then its folder', async () => {
    const probe = await open(join(dir, 'probe'), 'w');
    await probe.close();
    // FileHandle is not exported: spy on its prototype. (Its close is a per-instance field, out of reach.)
    const handles = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
    const sync = vi.spyOn(handles, 'sync');
    try {
      await writeFileAtomically(join(dir, 'result.json'), '{}');
      expect(sync).toHaveBeenCalledTimes(2);
      // A record the run can make again: renamed into place whole, never synced.
      await writeFileAtomically(join(dir, 'record.json'), '{"etag":"1"}', { durable: false });
      expect(sync).toHaveBeenCalledTimes(2);
      expect(readFileSync(join(dir, 'record.json'), 'utf8')).toBe('{"etag":"1"}');
    } finally {
      sync.mockRestore();
    }
  });

  it('closes every file and folder it opened, in both twins', async () => {
    const openFds = (): number => readdirSync('/proc/self/fd').length;
    await writeFileAtomically(join(dir, 'warm-up.json'), '{}'); // lazily opened internals
    const before = openFds();
    await writeFileAtomically(join(dir, 'a.json'), '{}');
    writeFileAtomicallySync(join(dir, 'b.json'), '{}');
    expect(openFds()).toBe(before);
  });

  it('a folder that cannot be synced is an error here (only Windows may skip it)', async () => {
    await expect(syncFolder(join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('has a synchronous twin with the same guarantees', () => {
    const path = join(dir, 'x', 'sends.log');
    writeFileAtomicallySync(path, '1\n2\n');
    expect(readFileSync(path, 'utf8')).toBe('1\n2\n');
    expect(readdirSync(join(dir, 'x'))).toEqual(['sends.log']);

    const blocked = join(dir, 'blocked');
    mkdirSync(blocked);
    writeFileSync(join(blocked, 'occupant'), 'x');
    expect(() => writeFileAtomicallySync(blocked, 'data')).toThrow(expect.objectContaining({ code: 'EISDIR' }));
    expect(readdirSync(dir).sort()).toEqual(['blocked', 'x']);
  });
});

describe('sweepTempFiles', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sweep-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('removes tmp files of dead writers, recursively, and nothing else', async () => {
    const dead = deadPid();
    mkdirSync(join(dir, 'out', 'nested'), { recursive: true });
    const leftovers = [join(dir, `.result.json.tmp-${dead}-0a1b2c3d4e5f`), join(dir, 'out', 'nested', `.doc.json.tmp-${dead}-abcdef`)];
    const keep = [
      join(dir, 'result.json'),
      join(dir, 'out', 'result.tmp-1-abc'), // not hidden: not ours
      join(dir, 'out', `.notes.tmp-${dead}-xyz`), // not hex: not ours
      join(dir, 'out', `.live.json.tmp-${process.ppid}-abcdef`), // the writer is alive
    ];
    for (const path of [...leftovers, ...keep]) writeFileSync(path, 'x');

    expect(await sweepTempFiles(dir)).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(['out', 'result.json']);
    expect(readdirSync(join(dir, 'out')).sort()).toEqual(
      [`.live.json.tmp-${process.ppid}-abcdef`, `.notes.tmp-${dead}-xyz`, 'nested', 'result.tmp-1-abc'].sort(),
    );
    expect(readdirSync(join(dir, 'out', 'nested'))).toEqual([]);
  });

  it('removes a tmp file with our own pid left by an earlier process, but not one we are writing', async () => {
    const stale = join(dir, `.old.json.tmp-${process.pid}-abc123`);
    writeFileSync(stale, 'x');
    const mine = reserveTempPath(join(dir, 'new.json'));
    writeFileSync(mine.path, 'x');
    expect(await sweepTempFiles(dir)).toBe(1);
    expect(readdirSync(dir)).toEqual([mine.path.slice(dir.length + 1)]);
    mine.release();
    expect(await sweepTempFiles(dir)).toBe(1);
  });

  it('returns 0 for a missing folder, or a file where a folder should be', async () => {
    expect(await sweepTempFiles(join(dir, 'missing'))).toBe(0);
    writeFileSync(join(dir, 'plain'), 'x');
    expect(await sweepTempFiles(join(dir, 'plain'))).toBe(0);
  });

  it('counts what it removed in subfolders', async () => {
    const dead = deadPid();
    mkdirSync(join(dir, 'a', 'b'), { recursive: true });
    writeFileSync(join(dir, 'a', 'b', `.x.json.tmp-${dead}-abc`), 'x');
    writeFileSync(join(dir, 'a', `.y.json.tmp-${dead}-abc`), 'x');
    expect(await sweepTempFiles(dir)).toBe(2);
  });

  it('takes only whole names of its own form', async () => {
    const dead = deadPid();
    const strangers = [`a.result.tmp-${dead}-abc`, `.result.tmp-${dead}-abc.bak`];
    for (const name of strangers) writeFileSync(join(dir, name), 'x');
    expect(await sweepTempFiles(dir)).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(strangers.sort());
  });
});

describe('a process that exits mid-write (a reader closed the pipe: process.exit on EPIPE)', () => {
  it('leaves no tmp file behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'atomic-exit-'));
    try {
      // The built module (dist, made by the global setup): a child process of its own, so that it can exit.
      const module = new URL('../../../dist/store/atomic-write.js', import.meta.url).href;
      // 256 MiB is still being written when the tmp file is seen, the positive signal to exit on.
      const script = `
        import { readdirSync } from 'node:fs';
        import { writeFileAtomically } from ${JSON.stringify(module)};
        const dir = ${JSON.stringify(dir)};
        void writeFileAtomically(dir + '/commands.json', Buffer.alloc(256 * 1024 * 1024, 0x20));
        const seen = setInterval(() => {
          if (readdirSync(dir).some((name) => name.includes('.tmp-'))) { clearInterval(seen); process.exit(0); }
        }, 1);
      `;
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
      expect(child.stderr).toBe('');
      expect(child.status).toBe(0);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the tmp name beside a long target', () => {
  /** `.<stem>.tmp-<pid>-<12 hex>`: the stem, as reserveTempPath cut it. */
  function stemOf(target: string): string {
    const reserved = reserveTempPath(join('/state', target));
    reserved.release();
    const name = basename(reserved.path);
    const suffix = name.lastIndexOf('.tmp-');
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
    return name.slice(1, suffix);
  }
  const hash16 = (name: string): string => createHash('sha256').update(name).digest('hex').slice(0, 16);

  it('keeps a name that leaves room for the suffix (226 bytes), whole', () => {
    const name = 'a'.repeat(226);
    expect(stemOf(name)).toBe(name);
  });

  it("cuts one byte longer to 209 bytes, `~` and 16 hex of the whole name's sha256", () => {
    const name = `${'b'.repeat(220)}${'c'.repeat(7)}`;
    expect(stemOf(name)).toBe(`${'b'.repeat(209)}~${hash16(name)}`);
  });

  it('cuts at a character boundary, never inside a UTF-8 character', () => {
    const name = 'é'.repeat(120); // 240 bytes: the cut at byte 209 would fall inside the 105th é
    expect(stemOf(name)).toBe(`${'é'.repeat(104)}~${hash16(name)}`);
  });
});
