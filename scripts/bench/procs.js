// Child processes and emulators the bench starts, tracked so that a failure, a timeout or Ctrl-C
// never leaves one running. Each child gets its own process group (detached), so killing the group
// also ends what it started (xargs and its curls, a node under /usr/bin/time).
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fromDist } from './context.js';

const children = new Set();
const emulators = new Set();

/**
 * Runs a command to completion.
 * @param {string} command
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, cwd?: string, timeoutMs?: number, captureStdout?: boolean,
 *   onStdoutLine?: (line: string) => void, onStderrLine?: (line: string) => void, onSpawn?: (pid: number) => void }} [options]
 * @returns {Promise<{ code: number | null, signal: string | null, wallMs: number, timedOut: boolean, stdout: string, stderrTail: string }>}
 */
export function run(command, args, options = {}) {
  const { env = process.env, cwd, timeoutMs = 120_000, captureStdout = false, onStdoutLine, onStderrLine, onSpawn } = options;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let exitedAt = 0;
    const child = spawn(command, args, { env, cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '';
    let stderrTail = '';
    let timedOut = false;
    const stdoutLines = lineSplitter(onStdoutLine);
    const stderrLines = lineSplitter(onStderrLine);
    child.stdout.setEncoding('utf8').on('data', (text) => {
      if (captureStdout) stdout += text;
      stdoutLines.push(text);
    });
    // Only the tail: a 10,000-file run prints a line per file on stderr.
    child.stderr.setEncoding('utf8').on('data', (text) => {
      stderrTail = (stderrTail + text).slice(-4000);
      stderrLines.push(text);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, 'SIGKILL');
    }, timeoutMs);
    child.on('spawn', () => onSpawn?.(child.pid));
    child.on('exit', () => {
      exitedAt = performance.now();
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      children.delete(child);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      stdoutLines.flush();
      stderrLines.flush();
      // The group may still hold grandchildren (a curl whose xargs died): end them too.
      killGroup(child, 'SIGKILL');
      resolve({ code, signal, wallMs: (exitedAt || performance.now()) - started, timedOut, stdout, stderrTail });
    });
  });
}

/** Hands whole lines of a text stream to `onLine` (none when it is undefined). */
function lineSplitter(onLine) {
  // The pieces of the line not ended yet: a dry run's JSON is one line of ~200 MB at a million
  // files, and joining it to each chunk before looking for a newline would take hours (quadratic),
  // holding the CLI back on a full pipe.
  let pieces = [];
  return {
    push(text) {
      if (!onLine) return;
      let start = 0;
      for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
        pieces.push(text.slice(start, newline));
        const line = pieces.join('');
        pieces = [];
        start = newline + 1;
        onLine(line);
      }
      if (start < text.length) pieces.push(text.slice(start));
    },
    flush() {
      if (onLine && pieces.length > 0) onLine(pieces.join(''));
      pieces = [];
    },
  };
}

function killGroup(child, signal) {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Starts a long-lived child (a server the section talks to) in its own process group, ended by cleanUp if the section does not end it. */
export function spawnTracked(command, args, options = {}) {
  const child = spawn(command, args, { ...options, detached: true });
  children.add(child);
  child.on('close', () => children.delete(child));
  return child;
}

/** Ends a child started by spawnTracked (its whole group) and waits for it to close. */
export function stopTracked(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const closed = new Promise((resolve) => child.once('close', resolve));
  killGroup(child, signal);
  return closed;
}

/** Starts an emulator from dist/ and remembers it until stopEmulator. */
export async function startTrackedEmulator(options) {
  const { startEmulator } = await fromDist('emulator/index.js');
  const emulator = await startEmulator(options);
  emulators.add(emulator);
  return emulator;
}

export async function stopEmulator(emulator) {
  emulators.delete(emulator);
  await emulator.close();
}

/** Ends every child still running and closes every emulator; safe to call more than once. */
export async function cleanUp() {
  killStragglers();
  await Promise.allSettled([...emulators].map((emulator) => stopEmulator(emulator)));
}

/** Synchronous part of the clean-up, for process 'exit'. */
export function killStragglers() {
  for (const child of children) killGroup(child, 'SIGKILL');
  children.clear();
}
