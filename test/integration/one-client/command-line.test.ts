/**
 * A running command is listed by its own command line (commands.json, `docextract jobs`): the
 * arguments `main` was given, not the process's. A program or a test that runs the CLI in its own
 * process (`main(argv)`) has another process.argv, which once named a `--force` run wrongly.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from '../../helpers/emulator-run.js';
import { holdAnswersUntilReleased } from '../../helpers/held-answers.js';
import { runningCommands, waitFor } from '../../helpers/one-client.js';
import { runCli } from '../../helpers/run-cli.js';
import { makeWorkspace } from '../../helpers/workspace.js';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('the command line a running command is listed by', () => {
  it("is the one main was given, also when the CLI runs in another program's process", async () => {
    const held = holdAnswersUntilReleased();
    const emu = (emulator = await startTestEmulator({ holdAnswer: held.holdAnswer }));
    const ws = makeWorkspace({ 'a.png': 'images/id-card.png' });
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const run = runCli(['extract', join(ws.inputs, 'a.png'), '--out', ws.out, ...UNTHROTTLED_FLAGS], { env });
    await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host'), 'the extract to host');
    const listed = runningCommands(stateDir).find((command) => command.role === 'host');
    held.release();
    expect((await run).code).toBe(0);
    expect(listed?.command).toMatch(/^docextract extract \S*a\.png --out /);
    expect(listed?.command).toContain('--rate-limit none');
  });
});
