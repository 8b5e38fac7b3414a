/**
 * A part finished by any command completes its source (issue 41): `collect <part job>` riding along
 * on another command that holds the state folder. The host runs the part's job; the source's result
 * is written again before the answer goes back, and collect reports the source. Every step waits on
 * a positive signal: the emulator holds the first run's `process` answers, then the host's own
 * upload (so it is still running while collect rides along), and the host's record lists collect.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, readJournal, startTestEmulator, UNTHROTTLED_FLAGS } from '../../helpers/emulator-run.js';
import { holdAnswersUntilReleased, holdDocumentsUntilReleased, waitForClient } from '../../helpers/held-answers.js';
import { commandRig, completeAt, runningCommands, waitFor } from '../../helpers/one-client.js';
import { runCli } from '../../helpers/run-cli.js';
import { inProcessCommands } from '../../helpers/in-process-command.js';
import { makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';

const rig = commandRig();
// The run Ctrl-C'd and the host collect rides along on are processes; collect runs in this process, under another pid.
const inProcess = inProcessCommands();

interface SourceResult {
  status: string;
  pages: { total: number; processed: number; missing: number[] };
  parts: { source_pages: number[]; status: string; result_file: string | null }[];
}

describe('a part collected riding along on another command', () => {
  it(
    'Ctrl-C in part 1 of a 151-page statement; `collect <part job>` rides along on a running extract: statement.pdf.json is rewritten complete and collect reports it',
    { timeout: 180_000 },
    async () => {
      const processHeld = holdAnswersUntilReleased({ endpoints: ['process'] });
      const hostHeld = holdDocumentsUntilReleased(['documents']);
      const emu = (rig.emulator = await startTestEmulator({ holdAnswer: processHeld.holdAnswer, holdDocument: hostHeld.holdDocument }));
      const ws = makeWorkspace({ 'stmt/statement.pdf': 'broken/over-limit-151.pdf', 'host/id-card.png': 'images/id-card.png' });
      const env = emulatorEnv(emu);
      const stateDir = env.DOCEXTRACT_STATE_DIR as string;
      const sourceResult = join(ws.out, 'statement.pdf.json');

      // Where the test starts from: part 1's job open, part 2 answered, the source partial.
      const run = rig.track(startChildCli(['extract', join(ws.inputs, 'stmt'), '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], env));
      await waitFor(() => readJournal(stateDir).some((record) => record.type === 'manifest'), "part 1's job journaled");
      await waitFor(() => completeAt(join(ws.out, '.parts', 'statement.pdf.p151.json')), 'part 2 answered and written');
      run.child.kill('SIGINT');
      await waitFor(() => run.stderrSoFar().includes('SIGINT: finishing the requests in flight'), 'the run to stop taking work');
      processHeld.release();
      const stopped = await run.done;
      expect(stopped.code, stopped.stderr).toBe(130);
      expect((JSON.parse(readFileSync(sourceResult, 'utf8')) as SourceResult).status).toBe('partial');
      const finish = /finish: docextract (.+)$/m.exec((await runCli(['jobs'], { env })).stdout)?.[1];
      expect(finish).toMatch(/^collect \S+$/);

      // Another command holds the state folder and hosts: its own upload waits, so it is still running when collect comes.
      hostHeld.hold(sha256Of(join(ws.inputs, 'host', 'id-card.png')));
      const host = rig.track(startChildCli(['extract', join(ws.inputs, 'host'), '--out', join(ws.dir, 'out-host'), '--json', ...UNTHROTTLED_FLAGS], env));
      await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host' && command.pid === host.child.pid), 'the extract to host');
      const collecting = inProcess([...(finish as string).split(' '), '--json', ...UNTHROTTLED_FLAGS], env);
      await waitForClient(stateDir, 'collect to ride along on the extract', collecting.pid);
      const collect = await collecting.done;
      expectNoStackTrace(collect.stderr);
      expect(collect.code, collect.stderr).toBe(0);
      // The host is still at its own work: the source was written on collect's behalf, not by a later command.
      expect(host.child.exitCode).toBeNull();

      const after = JSON.parse(readFileSync(sourceResult, 'utf8')) as SourceResult;
      expect(after.status).toBe('complete');
      expect(after.pages).toEqual({ total: 151, processed: 151, missing: [] });
      expect(after.parts.map((part) => [part.status, part.source_pages.length])).toEqual([
        ['complete', 150],
        ['complete', 1],
      ]);
      expect(after.parts[0]?.result_file).toBe(join(ws.out, '.parts', 'statement.pdf.p1-150.json'));
      // collect reports the source, the one document the user named.
      expect(parseNdjson(collect.stdout)).toEqual([expect.objectContaining({ status: 'complete', output: sourceResult })]);

      hostHeld.release();
      const hosted = await host.done;
      expect(hosted.code, hosted.stderr).toBe(0);
      expect((await runCli(['jobs'], { env })).stdout).toContain('No open jobs');
    },
  );
});
