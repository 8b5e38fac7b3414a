/**
 * The atomic writer on a file system that fails or writes short where the
 * test says: what a real disk does rarely (a partial write, an fsync error,
 * a folder that cannot be synced, too many open files) and Windows always
 * (a folder cannot be opened). The real calls run unless a case overrides one.
 */
import { fstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sweepTempFiles, syncFolder, writeFileAtomically, writeFileAtomicallySync } from '../../../src/store/atomic-write.js';

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return {
    ...actual,
    openSync: vi.fn(actual.openSync),
    writeSync: vi.fn(actual.writeSync),
    fsyncSync: vi.fn(actual.fsyncSync),
    closeSync: vi.fn(actual.closeSync),
    rmSync: vi.fn(actual.rmSync),
  };
});
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return { ...actual, rm: vi.fn(actual.rm), readdir: vi.fn(actual.readdir) };
});

const actual = await vi.importActual<typeof import('node:fs')>('node:fs');
const actualPromises = await vi.importActual<typeof import('node:fs/promises')>('node:fs/promises');
const mocked = {
  openSync: vi.mocked(fs.openSync),
  writeSync: vi.mocked(fs.writeSync),
  fsyncSync: vi.mocked(fs.fsyncSync),
  closeSync: vi.mocked(fs.closeSync),
  rmSync: vi.mocked(fs.rmSync),
  rm: vi.mocked(fsp.rm),
  readdir: vi.mocked(fsp.readdir),
};

function fsError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected`), { code });
}

/** Runs `body` as if on Windows, where a folder cannot be opened or synced. */
async function onWindows<T>(body: () => T | Promise<T>): Promise<T> {
  const platform = Object.getOwnPropertyDescriptor(process, 'platform') as PropertyDescriptor;
  Object.defineProperty(process, 'platform', { value: 'win32' });
  try {
    return await body();
  } finally {
    Object.defineProperty(process, 'platform', platform);
  }
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'atomic-injected-'));
  vi.clearAllMocks();
});
afterEach(() => {
  mocked.openSync.mockImplementation(actual.openSync);
  mocked.writeSync.mockImplementation(actual.writeSync);
  mocked.fsyncSync.mockImplementation(actual.fsyncSync);
  mocked.closeSync.mockImplementation(actual.closeSync);
  mocked.rmSync.mockImplementation(actual.rmSync);
  mocked.rm.mockImplementation(actualPromises.rm);
  mocked.readdir.mockImplementation(actualPromises.readdir as typeof fsp.readdir);
  rmSync(dir, { recursive: true, force: true });
});

describe('writeFileAtomicallySync on an injected file system', () => {
  it('fsyncs the file, then its folder, and closes both', () => {
    const synced: ('file' | 'folder')[] = [];
    mocked.fsyncSync.mockImplementation((fd: number) => void synced.push(fstatSync(fd).isDirectory() ? 'folder' : 'file'));
    writeFileAtomicallySync(join(dir, 'sends.log'), '1\n');
    expect(synced).toEqual(['file', 'folder']);
    expect(mocked.closeSync).toHaveBeenCalledTimes(2);
    expect(readFileSync(join(dir, 'sends.log'), 'utf8')).toBe('1\n');
  });

  it('keeps writing after a short write until every byte is down', () => {
    // Three bytes at most per call, as a pipe or a full disk may do.
    mocked.writeSync.mockImplementation(((fd: number, buffer: Uint8Array, offset: number) =>
      actual.writeSync(fd, buffer, offset, Math.min(3, buffer.length - offset))) as typeof fs.writeSync);
    writeFileAtomicallySync(join(dir, 'long.log'), 'héllo, a line longer than three bytes\n');
    expect(readFileSync(join(dir, 'long.log'), 'utf8')).toBe('héllo, a line longer than three bytes\n');
    expect(mocked.writeSync.mock.calls.length).toBeGreaterThan(10);
  });

  it('an open that fails throws its error untouched and leaves nothing behind', () => {
    mocked.openSync.mockImplementationOnce(() => {
      throw fsError('EMFILE');
    });
    expect(() => writeFileAtomicallySync(join(dir, 'sends.log'), '1\n')).toThrow(expect.objectContaining({ code: 'EMFILE' }));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an fsync that fails closes the file, removes it, and throws the error untouched', () => {
    mocked.fsyncSync.mockImplementationOnce(() => {
      throw fsError('EIO');
    });
    expect(() => writeFileAtomicallySync(join(dir, 'sends.log'), '1\n')).toThrow(expect.objectContaining({ code: 'EIO' }));
    expect(mocked.closeSync).toHaveBeenCalledTimes(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a folder that cannot be synced is an error, except on Windows', async () => {
    const failFolderSync = (fd: number): void => {
      if (fstatSync(fd).isDirectory()) throw fsError('EINVAL');
    };
    mocked.fsyncSync.mockImplementation((fd: number) => (failFolderSync(fd), actual.fsyncSync(fd)));
    expect(() => writeFileAtomicallySync(join(dir, 'a.log'), '1\n')).toThrow(expect.objectContaining({ code: 'EINVAL' }));
    await onWindows(() => writeFileAtomicallySync(join(dir, 'b.log'), '2\n'));
    expect(readFileSync(join(dir, 'b.log'), 'utf8')).toBe('2\n');
  });
});

describe('writeFileAtomically and syncFolder on Windows', () => {
  it('a folder that cannot be opened is no error there: the rename stands', async () => {
    await expect(onWindows(() => syncFolder(join(dir, 'missing')))).resolves.toBeUndefined();
    await onWindows(() => writeFileAtomically(join(dir, 'result.json'), '{}'));
    expect(readFileSync(join(dir, 'result.json'), 'utf8')).toBe('{}');
  });
});

/** A non-empty folder where the file should go: the tmp file is written, then the rename fails (EISDIR). */
function blockedPath(): string {
  const path = join(dir, 'blocked');
  fs.mkdirSync(path);
  writeFileSync(join(path, 'occupant'), 'x');
  return path;
}

describe('a tmp file a failed write could not remove', () => {
  it('does not hide the write error, and is swept later, in both twins', async () => {
    mocked.rmSync.mockImplementationOnce(() => {
      throw fsError('EBUSY');
    });
    expect(() => writeFileAtomicallySync(blockedPath(), 'data')).toThrow(expect.objectContaining({ code: 'EISDIR' }));
    mocked.rm.mockRejectedValueOnce(fsError('EBUSY'));
    await expect(writeFileAtomically(join(dir, 'blocked'), 'data')).rejects.toMatchObject({ code: 'EISDIR' });
    const left = readdirSync(dir).filter((name) => name.includes('.tmp-'));
    expect(left).toHaveLength(2);
    // Both carry this process's pid, and neither is being written any more: both go.
    expect(await sweepTempFiles(dir)).toBe(2);
    expect(readdirSync(dir)).toEqual(['blocked']);
  });
});

describe('sweepTempFiles', () => {
  it('a folder it cannot read is an error (only a missing one counts as empty)', async () => {
    mocked.readdir.mockRejectedValueOnce(fsError('EACCES'));
    await expect(sweepTempFiles(dir)).rejects.toMatchObject({ code: 'EACCES' });
  });

  it('a leftover another sweeper removed first is no error', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid as number;
    const leftover = join(dir, `.r.json.tmp-${dead}-abc123`);
    writeFileSync(leftover, 'x');
    mocked.readdir.mockImplementationOnce((async (path: string, options: never) => {
      const entries = await actualPromises.readdir(path, options);
      actual.rmSync(leftover); // gone between the listing and the removal
      return entries;
    }) as typeof fsp.readdir);
    await expect(sweepTempFiles(dir)).resolves.toBe(1);
  });

  it('leaves anything but a regular file alone, even named like a leftover', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid as number;
    writeFileSync(join(dir, 'target'), 'x');
    symlinkSync(join(dir, 'target'), join(dir, `.link.json.tmp-${dead}-abc123`));
    expect(await sweepTempFiles(dir)).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([`.link.json.tmp-${dead}-abc123`, 'target']);
  });
});
