import { DocextractError } from '../util/docextract-error.js';
/**
 * One run per state folder. The lock is a file `<dir>/lock` holding the owner's
 * pid, host and a heartbeat; after kill -9 it goes stale by itself (dead pid on
 * this host, or a heartbeat older than `staleMs` anywhere).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { link, mkdir, open, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { systemClock, type Clock } from '../util/clock.js';
import { reserveTempPath, writeFileAtomically } from './atomic-write.js';
import { hasErrorCode } from './fs-errors.js';
import { isProcessAlive } from './process-alive.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, readPrivateFile } from './private-files.js';
import { refuseUnsafeStateDir } from './private-state-dir.js';

export interface StateLock {
  release(): Promise<void>;
}

export interface StateLockOptions {
  /** Source of heartbeat timestamps. @default systemClock */
  clock?: Clock;
  /** A heartbeat older than this marks the lock stale. @default 30_000 */
  staleMs?: number;
  /** How often the holder rewrites its heartbeat. @default 5_000 */
  heartbeatMs?: number;
}

interface LockContent {
  pid: number;
  hostname: string;
  startedAt: number;
  heartbeatAt: number;
  /** Tells our lock from another process that had the same pid (containers). */
  token: string;
}

export class LockedError extends DocextractError {
  /** Always `'LockedError'`. */
  override readonly name = 'LockedError';
  /** Always `state_locked`. */
  readonly code = 'state_locked';
  constructor(
    /** The process that holds the state folder. */
    readonly holderPid: number,
    /** The lock file. */
    readonly lockPath: string,
    /** The host it runs on, when not this one. */
    readonly holderHost?: string,
  ) {
    super(
      `The state folder is in use by process ${holderPid}${holderHost ? ` on ${holderHost}` : ''} ` +
        `(lock file ${lockPath}); wait for it to finish or stop it`,
    );
  }
}

/** Tokens of locks this process holds, so a second acquire in the same process is refused. */
const heldTokens = new Set<string>();

/**
 * Take `<dir>/lock`, creating `dir` if needed. The lock file appears with its
 * whole content at once (hard link of a fully written tmp file, which fails
 * with EEXIST exactly like O_EXCL), so no reader ever sees it half-written and
 * mistakes it for a stale, unreadable lock.
 * A stale lock is taken over; a live one throws LockedError naming its pid.
 */
export async function acquireStateLock(dir: string, opts: StateLockOptions = {}): Promise<StateLock> {
  const clock = opts.clock ?? systemClock;
  const staleMs = opts.staleMs ?? 30_000;
  const heartbeatMs = opts.heartbeatMs ?? 5_000;
  const lockPath = join(dir, 'lock');
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });

  const now = clock.now();
  const content: LockContent = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: now,
    heartbeatAt: now,
    token: randomBytes(8).toString('hex'),
  };

  // Each round either creates the lock, throws, or removes one stale lock; a
  // few rounds cover racing takeovers.
  for (let round = 0; round < 5; round++) {
    if (await createExclusively(lockPath, JSON.stringify(content))) {
      heldTokens.add(content.token);
      return startHolding(lockPath, content, clock, heartbeatMs);
    }
    const seen = await readLockText(lockPath);
    if (seen === undefined) continue;
    const holder = parseLock(seen);
    if (holder && !isStale(holder, clock.now(), staleMs)) {
      throw new LockedError(holder.pid, lockPath, holder.hostname);
    }
    await removeIfUnchanged(lockPath, seen);
  }
  const holder = parseLock((await readLockText(lockPath)) ?? '');
  throw new LockedError(holder?.pid ?? 0, lockPath, holder?.hostname);
}

/** The process holding `<dir>/lock` now, if one does (a stale lock holds nothing); reads only, and only a private folder (StateDirUnsafeError). */
export async function stateLockHolder(
  dir: string,
  opts: Pick<StateLockOptions, 'clock' | 'staleMs'> = {},
): Promise<
  | {
      /** The holder's process id, on `hostname`. */
      pid: number;
      /** The machine the holder runs on (os.hostname()). */
      hostname: string;
      /** When it took the lock (Unix ms). */
      startedAt: number;
    }
  | undefined
> {
  await refuseUnsafeStateDir(dir);
  const seen = await readLockText(join(dir, 'lock'));
  const holder = seen === undefined ? undefined : parseLock(seen);
  if (!holder || isStale(holder, (opts.clock ?? systemClock).now(), opts.staleMs ?? 30_000)) return undefined;
  return { pid: holder.pid, hostname: holder.hostname, startedAt: holder.startedAt };
}

function isStale(holder: LockContent, now: number, staleMs: number): boolean {
  if (now - holder.heartbeatAt > staleMs) return true;
  if (holder.hostname !== hostname()) return false;
  // Our own pid but not our token: an earlier process with the same pid died.
  if (holder.pid === process.pid) return !heldTokens.has(holder.token);
  return !isProcessAlive(holder.pid);
}

async function createExclusively(lockPath: string, text: string): Promise<boolean> {
  const tmp = reserveTempPath(lockPath);
  try {
    await writeFile(tmp.path, text, { flag: 'wx', mode: PRIVATE_FILE_MODE });
    try {
      await link(tmp.path, lockPath);
      return true;
    } catch (error) {
      if (hasErrorCode(error, 'EEXIST')) return false;
      // Filesystems without hard links: fall back to O_EXCL, accepting a brief
      // window in which the file exists but is still empty.
      if (!hasErrorCode(error, 'EPERM') && !hasErrorCode(error, 'ENOTSUP') && !hasErrorCode(error, 'ENOSYS')) throw error;
      return await createWithOExcl(lockPath, text);
    }
  } finally {
    await rm(tmp.path, { force: true });
    tmp.release();
  }
}

async function createWithOExcl(lockPath: string, text: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(lockPath, 'wx', PRIVATE_FILE_MODE);
  } catch (error) {
    if (hasErrorCode(error, 'EEXIST')) return false;
    throw error;
  }
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return true;
}

/** The lock's text, or undefined when there is none; a link where the lock should be is refused (StateDirUnsafeError), never followed. */
async function readLockText(lockPath: string): Promise<string | undefined> {
  try {
    return await readPrivateFile(lockPath);
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return undefined;
    throw error;
  }
}

/** An unreadable lock (emptied by an OS crash) is stale: no live holder writes one. */
function parseLock(text: string): LockContent | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockContent>;
    if (typeof value.pid === 'number' && typeof value.heartbeatAt === 'number') {
      return {
        pid: value.pid,
        hostname: typeof value.hostname === 'string' ? value.hostname : '',
        startedAt: typeof value.startedAt === 'number' ? value.startedAt : value.heartbeatAt,
        heartbeatAt: value.heartbeatAt,
        token: typeof value.token === 'string' ? value.token : '',
      };
    }
  } catch {
    // fall through: unreadable
  }
  return undefined;
}

/**
 * Move the stale lock aside (atomic; only one racer wins) and delete it. If
 * what we moved is no longer what we judged stale, another process took over
 * in between: put its lock back.
 */
async function removeIfUnchanged(lockPath: string, seen: string): Promise<void> {
  const reserved = reserveTempPath(lockPath);
  const aside = reserved.path;
  try {
    await rename(lockPath, aside);
  } catch (error) {
    reserved.release();
    if (hasErrorCode(error, 'ENOENT')) return;
    throw error;
  }
  try {
    const moved = await readLockText(aside);
    if (moved !== seen) await link(aside, lockPath).catch(() => undefined);
  } finally {
    await rm(aside, { force: true });
    reserved.release();
  }
}

function startHolding(lockPath: string, content: LockContent, clock: Clock, heartbeatMs: number): StateLock {
  let released = false;
  let beating: Promise<void> = Promise.resolve();

  const beat = async (): Promise<void> => {
    const current = parseLock((await readLockText(lockPath)) ?? '');
    // Lost the lock (judged stale while we were frozen, e.g. a suspended laptop): never clobber the new owner's.
    if (released || current?.token !== content.token) {
      stop();
      return;
    }
    await writeFileAtomically(lockPath, JSON.stringify({ ...content, heartbeatAt: clock.now() }), { mode: PRIVATE_FILE_MODE });
  };

  // A real timer on purpose: staleness is judged by other processes in real
  // time, and unref() keeps the heartbeat from holding the process open, which
  // the Clock interface cannot express.
  const timer = setInterval(() => {
    beating = beating.then(beat).catch(() => undefined);
  }, heartbeatMs);
  timer.unref();
  const stop = (): void => clearInterval(timer);

  return {
    async release(): Promise<void> {
      if (released) return;
      released = true;
      stop();
      await beating;
      heldTokens.delete(content.token);
      const current = parseLock((await readLockText(lockPath)) ?? '');
      if (current?.token === content.token) await unlink(lockPath).catch(() => undefined);
    },
  };
}
