/**
 * What the tests of commands running together on one state folder share:
 * no command left running after a test (a watch never ends by itself), the
 * emulator closed, waits on conditions, and the commands the host lists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningChild } from './child-run.js';

export { waitFor } from './wait-for.js';

export interface CommandRig {
  /** Every command a test starts: killed after it if still running. */
  children: RunningChild[];
  emulator?: RunningEmulator;
  /** Registers a started command for the clean-up, and gives it back. */
  track(started: RunningChild): RunningChild;
}

/** Registers the cleanup (call at the top of a test file). */
export function commandRig(): CommandRig {
  const rig: CommandRig = {
    children: [],
    track(started) {
      rig.children.push(started);
      return started;
    },
  };
  afterEach(async (context) => {
    // A test that failed (a timeout says nothing more) shows what each of its commands had said: where it stopped.
    if (context.task.result?.state === 'fail') {
      for (const started of rig.children)
        process.stderr.write(
          `--- ${started.child.spawnargs.slice(2).join(' ')} (pid ${started.child.pid}, exit ${started.child.exitCode ?? started.child.signalCode ?? 'still running'})\nstdout:\n${started.stdoutSoFar()}\nstderr:\n${started.stderrSoFar()}\n`,
        );
    }
    for (const started of rig.children.splice(0)) if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGKILL');
    await rig.emulator?.close();
    rig.emulator = undefined;
  });
  return rig;
}

/** The result file at `path` exists and says complete (what a watch wrote, waited for from outside). */
export function completeAt(path: string): boolean {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { status?: string }).status === 'complete';
  } catch {
    return false;
  }
}

/** One command the host lists: its role, and how many of its documents have no outcome yet. */
export interface ListedCommand {
  pid: number;
  /** Its command line, as `docextract jobs` shows it. */
  command: string;
  role: string;
  queued: number;
}

/** The commands the host lists in the state folder (what `docextract jobs` shows). */
export function runningCommands(stateDir: string): ListedCommand[] {
  try {
    return (JSON.parse(readFileSync(join(stateDir, 'commands.json'), 'utf8')) as { commands: ListedCommand[] }).commands;
  } catch {
    return [];
  }
}
