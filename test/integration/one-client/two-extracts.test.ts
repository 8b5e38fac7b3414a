/**
 * Many commands, one client (issue 20): commands on one key and one state
 * folder run at the same time as one client. The first to take the state
 * folder's lock hosts the scheduler; the others submit to it over its
 * socket. Real processes against the emulator.
 */
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';
import { holdAnswersUntilReleased } from '../../helpers/held-answers.js';
import { commandRig, runningCommands, waitFor } from '../../helpers/one-client.js';
import { expectEachTakenOnce, uploadTally } from '../../helpers/upload-tally.js';
import { inProcessCommands } from '../../helpers/in-process-command.js';

const rig = commandRig();
const track = rig.track;
const inProcess = inProcessCommands();

const FILES = {
  'a.png': 'images/id-card.png',
  'b.jpg': 'images/receipt.jpg',
  'c.pdf': 'pdf/pages-2.pdf',
  'd.pdf': 'pdf/pages-7.pdf',
  'e.pdf': 'pdf/pages-12.pdf',
};
const PAGES: Record<string, number> = { 'a.png': 1, 'b.jpg': 1, 'c.pdf': 2, 'd.pdf': 7, 'e.pdf': 12 };

describe('many commands, one client: two extracts', () => {
  it('two extracts started at once on the same files: both exit 0 with every file complete, each content uploaded once', async () => {
    const held = holdAnswersUntilReleased();
    const tally = uploadTally();
    const emu = (rig.emulator = await startTestEmulator({
      rateLimits: [
        { limit: 8, windowMs: 1000 },
        { limit: 60, windowMs: 12_000 },
      ],
      latencyMs: { documents: 100, process: 100 },
      holdAnswer: held.holdAnswer,
      onRequest: tally.onRequest,
    }));
    const ws = makeWorkspace(FILES);
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const args = (out: string): string[] => ['extract', ws.inputs, '--out', out, '--json', '--rate-limit', '8/1s,60/12s', ...FAST_FLAGS];
    // One in this process, one a process: the record lists each under its own pid.
    const first = inProcess(args(ws.out), env);
    const second = track(startChildCli(args(join(ws.dir, 'out2')), env));
    // One of them hosts, the other rides along on it: the host's own record says so, while the service holds its answers.
    const pids = [first.pid, second.child.pid];
    await waitFor(() => {
      const listed = runningCommands(stateDir);
      return ['host', 'client'].every((role) => listed.some((command) => command.role === role && pids.includes(command.pid)));
    }, 'one command hosting, the other riding along');
    held.release();
    const [one, two] = await Promise.all([first.done, second.done]);

    for (const [run, out] of [
      [one, ws.out],
      [two, join(ws.dir, 'out2')],
    ] as const) {
      expectNoStackTrace(run.stderr);
      expect(run.code, run.stderr).toBe(0);
      expect(parseNdjson(run.stdout).map((line) => line.status)).toEqual(Object.keys(FILES).map(() => 'complete'));
      for (const [name, pages] of Object.entries(PAGES)) expectCompleteResult(join(out, `${name}.json`), join(ws.inputs, name), pages);
    }
    // Each content was paid for by one command; the other reused that answer and says what it saved.
    const linesOf = (stdout: string): Map<string, Record<string, unknown>> => new Map(parseNdjson(stdout).map((line) => [basename(String(line.file)), line]));
    const [oneLines, twoLines] = [linesOf(one.stdout), linesOf(two.stdout)];
    for (const [name, pages] of Object.entries(PAGES)) {
      const pair = [oneLines.get(name), twoLines.get(name)];
      const reusing = pair.filter((line) => typeof line?.reused === 'string');
      expect(reusing, `${name}: one command reused the other's answer`).toHaveLength(1);
      expect(reusing[0], name).toMatchObject({ credits: 0, saved_credits: pages });
      expect(
        pair.find((line) => line !== reusing[0]),
        name,
      ).toMatchObject({ credits: pages });
    }
    expectEachTakenOnce(emu, tally, Object.fromEntries(Object.keys(FILES).map((name) => [name, sha256Of(join(ws.inputs, name))])));
    expect(emu.counters.creditsCharged).toBe(Object.values(PAGES).reduce((a, b) => a + b, 0));
    expect(emu.counters.rateLimited).toBeLessThanOrEqual(1);
  });
});
