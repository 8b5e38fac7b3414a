/**
 * What the tests of commands running together on one state folder share:
 * no command left running after a test (a watch never ends by itself), the
 * emulator closed, waits on conditions, and the commands the host lists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { RunningChild } from './child-run.js';

export interface CommandRig {
  /** Every command a test starts: killed after it if still running. */
  children: RunningChild[];
  emulator?: RunningEmulator;
}

/** Registers the cleanup (call at the top of a test file). */
export function commandRig(): CommandRig {
  const rig: CommandRig = { children: [] };
  afterEach(async () => {
    for (const started of rig.children.splice(0)) if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGKILL');
    await rig.emulator?.close();
    rig.emulator = undefined;
  });
  return rig;
}

/** Waits until `condition` holds (a bound only for how long a failing test is given). */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 25_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The commands the host lists in the state folder (what `docextract jobs` shows). */
export function runningCommands(stateDir: string): { pid: number; role: string }[] {
  try {
    return (JSON.parse(readFileSync(join(stateDir, 'commands.json'), 'utf8')) as { commands: { pid: number; role: string }[] }).commands;
  } catch {
    return [];
  }
}
