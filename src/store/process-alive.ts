import { hasErrorCode } from './fs-errors.js';

/**
 * Whether a process with this pid exists on this host. Only ESRCH proves it
 * gone; EPERM means it exists under another user, so it counts as alive.
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return !hasErrorCode(error, 'ESRCH');
  }
}
