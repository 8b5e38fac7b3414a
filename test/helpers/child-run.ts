import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { honouringFileModes } from './file-modes.js';

/** The built CLI (test/global-setup.ts builds dist once per test run). */
export const DOCEXTRACT_BIN = resolve(import.meta.dirname, '../../bin/docextract.cjs');

export interface ChildResult {
  /** null when a signal ended the process. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunningChild {
  child: ChildProcess;
  done: Promise<ChildResult>;
  /** What the child has written to stderr so far (to wait for a message). */
  stderrSoFar(): string;
  /** What it has written to stdout so far. */
  stdoutSoFar(): string;
}

export interface ChildOptions {
  /** Run so that file modes bind the CLI even when the tests run as root (see file-modes.ts). @default false */
  honourFileModes?: boolean;
}

/** `node bin/docextract.cjs <args>` with exactly `env` (nothing inherited), keeping the signal that ended it. */
export function startChildCli(args: string[], env: NodeJS.ProcessEnv, options: ChildOptions = {}): RunningChild {
  const node: [string, string[]] = [process.execPath, [DOCEXTRACT_BIN, ...args]];
  const [command, commandArgs] = options.honourFileModes === true ? honouringFileModes(...node) : node;
  const child = spawn(command, commandArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<ChildResult>((resolveDone, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolveDone({ code, signal, stdout, stderr }));
  });
  return { child, done, stderrSoFar: () => stderr, stdoutSoFar: () => stdout };
}

export function runChildCli(args: string[], env: NodeJS.ProcessEnv, options: ChildOptions = {}): Promise<ChildResult> {
  return startChildCli(args, env, options).done;
}
