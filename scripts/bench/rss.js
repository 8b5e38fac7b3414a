// Peak resident memory of a node child: VmHWM from /proc, polled while it runs (Linux), and, when
// GNU time is installed, its exact maxrss as a cross-check (the child then runs under /usr/bin/time).
import { existsSync, readFileSync, rmSync } from 'node:fs';

const TIME = '/usr/bin/time';

/**
 * Wraps `node args...` so its peak RSS can be read after it ends.
 * @returns {{ command: string, args: string[], onSpawn: (pid: number) => void, finish: () => { peakKiB: number | null, polledKiB: number | null, timeKiB: number | null, samples: number } }}
 */
export function peakRssProbe(args, reportFile) {
  const useTime = process.platform === 'linux' && existsSync(TIME) && !process.env.BENCH_NO_GNU_TIME;
  let polledKiB = null;
  let samples = 0;
  let timer = null;
  let target = null;
  const poll = (spawnedPid) => {
    target ??= useTime ? firstChild(spawnedPid) : spawnedPid;
    const hwm = target === null ? null : readVmHwm(target);
    if (hwm !== null) {
      polledKiB = Math.max(polledKiB ?? 0, hwm);
      samples += 1;
    }
  };
  return {
    command: useTime ? TIME : process.execPath,
    args: useTime ? ['-f', '%M', '-o', reportFile, process.execPath, ...args] : args,
    onSpawn: (pid) => {
      if (process.platform !== 'linux') return;
      timer = setInterval(() => poll(pid), 50);
    },
    finish: () => {
      if (timer !== null) clearInterval(timer);
      let timeKiB = null;
      if (useTime && existsSync(reportFile)) {
        const match = /(\d+)\s*$/.exec(readFileSync(reportFile, 'utf8'));
        timeKiB = match ? Number(match[1]) : null;
        rmSync(reportFile, { force: true });
      }
      const known = [polledKiB, timeKiB].filter((v) => v !== null);
      return { peakKiB: known.length ? Math.max(...known) : null, polledKiB, timeKiB, samples };
    },
  };
}

function readVmHwm(pid) {
  return readStatusKiB(pid, 'VmHWM');
}

/** A memory figure of a running process from /proc/<pid>/status (VmRSS: now, VmHWM: peak), in KiB; null off Linux or once it exited. */
export function readStatusKiB(pid, field) {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null; // exited between two polls
  }
}

function firstChild(pid) {
  try {
    const first = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0];
    return first ? Number(first) : null;
  } catch {
    return null;
  }
}
