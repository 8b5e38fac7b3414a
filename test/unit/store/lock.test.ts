import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LockedError, acquireStateLock, type StateLock } from '../../../src/store/lock.js';
import { FakeClock } from '../../helpers/fake-clock.js';

const T0 = 1_700_000_000_000;

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (child.pid === undefined) throw new Error('could not spawn a child');
  return child.pid;
}

describe('acquireStateLock', () => {
  let dir: string;
  let lockPath: string;
  const held: StateLock[] = [];
  const take = async (...args: Parameters<typeof acquireStateLock>): Promise<StateLock> => {
    const lock = await acquireStateLock(...args);
    held.push(lock);
    return lock;
  };
  const writeHolder = (holder: Record<string, unknown>): void =>
    writeFileSync(lockPath, JSON.stringify({ hostname: hostname(), startedAt: T0, heartbeatAt: T0, token: 'theirs', ...holder }));
  const owner = (): { pid: number; token: string; heartbeatAt: number } => JSON.parse(readFileSync(lockPath, 'utf8'));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lock-'));
    lockPath = join(dir, 'state', 'lock');
  });
  afterEach(async () => {
    await Promise.all(held.splice(0).map((lock) => lock.release()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates <dir>/lock with pid, host, start and heartbeat', async () => {
    const clock = new FakeClock(T0);
    await take(join(dir, 'state'), { clock });
    expect(JSON.parse(readFileSync(lockPath, 'utf8'))).toMatchObject({
      pid: process.pid,
      hostname: hostname(),
      startedAt: T0,
      heartbeatAt: T0,
    });
    expect(readdirSync(join(dir, 'state'))).toEqual(['lock']);
  });

  it('refuses a second acquire with LockedError naming the holder', async () => {
    await take(join(dir, 'state'));
    const second = acquireStateLock(join(dir, 'state'));
    await expect(second).rejects.toThrow(LockedError);
    await expect(acquireStateLock(join(dir, 'state'))).rejects.toMatchObject({ holderPid: process.pid, lockPath });
    await expect(acquireStateLock(join(dir, 'state'))).rejects.toThrow(`process ${process.pid}`);
  });

  it('releases: the file goes and the folder can be locked again', async () => {
    const lock = await acquireStateLock(join(dir, 'state'));
    await lock.release();
    expect(existsSync(lockPath)).toBe(false);
    await lock.release(); // idempotent
    await take(join(dir, 'state'));
    expect(owner().pid).toBe(process.pid);
  });

  it('takes over a lock whose pid is dead on this host (kill -9)', async () => {
    const clock = new FakeClock(T0);
    await take(join(dir, 'state'));
    await held.splice(0)[0]?.release();
    const dead = deadPid();
    writeHolder({ pid: dead, heartbeatAt: T0 });
    await take(join(dir, 'state'), { clock });
    expect(owner().pid).toBe(process.pid);
  });

  it('respects a live holder with a fresh heartbeat, and takes over once its heartbeat is stale', async () => {
    const clock = new FakeClock(T0 + 10_000);
    await take(join(dir, 'state'), { clock }).then((lock) => lock.release());
    writeHolder({ pid: process.ppid, heartbeatAt: T0 });
    await expect(acquireStateLock(join(dir, 'state'), { clock, staleMs: 30_000 })).rejects.toMatchObject({
      holderPid: process.ppid,
    });
    await clock.advance(20_001);
    await take(join(dir, 'state'), { clock, staleMs: 30_000 });
    expect(owner().pid).toBe(process.pid);
  });

  it('judges a lock from another host by its heartbeat alone', async () => {
    const clock = new FakeClock(T0);
    await take(join(dir, 'state'), { clock }).then((lock) => lock.release());
    writeHolder({ pid: 999_999_999, hostname: 'elsewhere', heartbeatAt: T0 });
    await expect(acquireStateLock(join(dir, 'state'), { clock })).rejects.toThrow(/process 999999999 on elsewhere/);
    await clock.advance(30_001);
    await take(join(dir, 'state'), { clock });
    expect(owner().pid).toBe(process.pid);
  });

  it('takes over a lock emptied by an OS crash', async () => {
    await take(join(dir, 'state')).then((lock) => lock.release());
    writeFileSync(lockPath, '');
    await take(join(dir, 'state'));
    expect(owner().pid).toBe(process.pid);
  });

  it('takes over a lock left by an earlier process that had our pid (containers)', async () => {
    const clock = new FakeClock(T0);
    await take(join(dir, 'state'), { clock }).then((lock) => lock.release());
    writeHolder({ pid: process.pid, token: 'previous-life', heartbeatAt: T0 });
    await take(join(dir, 'state'), { clock });
    expect(owner().token).not.toBe('previous-life');
  });

  it('rewrites the heartbeat while held', async () => {
    // The heartbeat is a real setInterval (see lock.ts): faked, so the test fires one beat rather than
    // waiting for real ones. The beat's write is real file I/O: the wait is for its positive outcome,
    // the bound only says how long a failing test is given.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const clock = new FakeClock(T0);
      await take(join(dir, 'state'), { clock, heartbeatMs: 10 });
      await clock.advance(60_000);
      vi.advanceTimersByTime(10);
      await vi.waitFor(() => expect(owner().heartbeatAt).toBe(T0 + 60_000), { timeout: 5_000, interval: 10 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not delete or overwrite a lock that someone else took over', async () => {
    // The heartbeat is a real setInterval (see lock.ts); fake only that, so the
    // test fires exactly one beat and then waits for its outcome, not for time.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const clock = new FakeClock(T0);
      const lock = await acquireStateLock(join(dir, 'state'), { clock, heartbeatMs: 10 });
      expect(vi.getTimerCount()).toBe(1);
      writeHolder({ pid: process.ppid, token: 'new-owner', heartbeatAt: T0 });
      await clock.advance(60_000);
      vi.advanceTimersByTime(10);
      // The beat that saw another owner's token stops the heartbeat; a beat that wrote would keep it.
      // (Its read of the lock file is real I/O: waited for by its outcome; the bound is for a failing test.)
      await vi.waitFor(() => expect(vi.getTimerCount()).toBe(0), { timeout: 5_000, interval: 5 });
      expect(owner()).toMatchObject({ token: 'new-owner', heartbeatAt: T0 });
      await lock.release();
      expect(owner().token).toBe('new-owner');
    } finally {
      vi.useRealTimers();
    }
  });
});
