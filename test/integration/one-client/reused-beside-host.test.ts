/**
 * README, "many commands, one client": a file another command paid for is
 * reported as reused by the second (`reused`, with what it saved), and
 * counted once. The first command hosts with its answers held at the
 * emulator; the second, with an identical file under another name, joins
 * it (the host's record lists it with its file) before anything is
 * answered. Each command's lines, credits and summary are its own.
 */
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { firstUpload, holdAnswersUntilReleased } from '../../helpers/held-answers.js';
import { commandRig, runningCommands, waitFor } from '../../helpers/one-client.js';
import { inProcessCommands } from '../../helpers/in-process-command.js';
import { expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';

const rig = commandRig();
// The host is a process, the second command runs in this one: the record lists each under its own pid.
const inProcess = inProcessCommands();

describe('a second command beside a running one, with a file the first is paying for', () => {
  it(
    'its line says reused with the credits it saved (0 spent), the first command’s line carries the charge, and the content is uploaded once',
    { timeout: 120_000 },
    async () => {
      const held = holdAnswersUntilReleased();
      const emu = (rig.emulator = await startTestEmulator({ holdAnswer: held.holdAnswer }));
      const ws = makeWorkspace({ 'h/four.pdf': 'pdf/pages-4.pdf', 'mine/same-four.pdf': 'pdf/pages-4.pdf' });
      const env = emulatorEnv(emu);
      const stateDir = env.DOCEXTRACT_STATE_DIR as string;
      const args = (folder: string, out: string): string[] => [
        'extract',
        join(ws.inputs, folder),
        '--out',
        join(ws.dir, out),
        '--json',
        '--rate-limit',
        'none',
        ...FAST_FLAGS,
      ];

      const hosting = firstUpload(emu);
      const host = rig.track(startChildCli(args('h', 'out-h'), env));
      await hosting;
      const rider = inProcess(args('mine', 'out-mine'), env);
      // The host's record: the second command riding along, its one file submitted.
      await waitFor(
        () =>
          runningCommands(stateDir).some((command) => command.role === 'client' && command.pid === rider.pid && (command as { queued?: number }).queued === 1),
        'the second command to submit its file to the host',
      );
      held.release();

      const [hostDone, riderDone] = await Promise.all([host.done, rider.done]);
      for (const run of [hostDone, riderDone]) {
        expectNoStackTrace(run.stderr);
        expect(run.code, run.stderr).toBe(0);
      }
      const [hostLine] = parseNdjson(hostDone.stdout);
      const riderLines = parseNdjson(riderDone.stdout);
      expect(hostLine).toMatchObject({ status: 'complete', credits: 4 });
      expect(hostLine).not.toHaveProperty('reused');
      expect(riderLines).toHaveLength(1);
      expect(basename(String(riderLines[0]!.file))).toBe('same-four.pdf');
      expect(riderLines[0]).toMatchObject({ status: 'complete', credits: 0, saved_credits: 4, reused: expect.any(String) });
      // Its own result, in its own folder, of its own source.
      expectCompleteResult(join(ws.dir, 'out-mine', 'same-four.pdf.json'), join(ws.inputs, 'mine/same-four.pdf'), 4);
      expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'h/four.pdf'))]).toBe(1);
      expect(emu.counters.creditsCharged).toBe(4);
    },
  );
});
