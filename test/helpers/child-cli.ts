import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const CLI_BIN = resolve(import.meta.dirname, '../../bin/docextract.js');

export interface ChildRun {
  child: ChildProcess;
  /** Resolves with the exit code (130 for a signal death, like a shell) and the captured streams. */
  done: Promise<{ code: number; stdout: string; stderr: string }>;
  stdout(): string;
  stderr(): string;
}

/** Run the built CLI as a real process, for tests where signals are the point. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv): ChildRun {
  const child = spawn(process.execPath, [CLI_BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number; stdout: string; stderr: string }>((resolveDone) => {
    child.on('close', (code, signal) => resolveDone({ code: code ?? (signal ? 128 + 9 : 1), stdout, stderr }));
  });
  return { child, done, stdout: () => stdout, stderr: () => stderr };
}
