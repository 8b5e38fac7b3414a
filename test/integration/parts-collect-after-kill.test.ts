/**
 * A part finished by any command completes its source (issue 41): a 301-page statement in three
 * parts (1-150, 151-300, 301). Ctrl-C leaves parts 1 and 2 open; the rerun finishes part 1 (its
 * result written, its job finalized) and is killed (-9) while part 2 is held, so the source's result
 * still lists part 1 interrupted. `collect` of part 2 then completes the source from the parts on
 * disk, and `collect` of part 1 (finalized already) writes it again and reports it, sending nothing.
 * Every step waits on a positive signal: the emulator's holds, the journal, the parts' result files.
 * And issue 52's Done-when: Ctrl-C in the first part of a 151-page statement extracted with
 * `--rate-limit 3/1s`; the commands `jobs` then gives, each run as printed by bash, complete it and pay
 * for nothing twice. Its windows are a tenth as long here (3/100ms, the service's too): the same plan of
 * 3 requests a window, whose 52 requests took 17 s of waiting at 3/1s and take 2 s.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { EmulatorEndpoint, EmulatorEvent } from '../../src/emulator/index.js';
import { DOCEXTRACT_BIN, startChildCli } from '../helpers/child-run.js';
import { emulatorEnv, expectNoContentUploadedTwice, expectNoStackTrace, readJournal, startTestEmulator, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { holdAnswersUntilReleased, holdDocumentsUntilReleased } from '../helpers/held-answers.js';
import { labelledPdf } from '../helpers/make-pdf.js';
import { commandRig, completeAt, waitFor } from '../helpers/one-client.js';
import { runCli } from '../helpers/run-cli.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';

const rig = commandRig();

interface SourceResult {
  status: string;
  pages: { total: number; processed: number; missing: number[] };
  parts: { source_pages: number[]; status: string; result_file: string | null }[];
}

/** The counted requests the emulator has answered so far (uploads, processing, results). */
function countedRequests(counters: { requestsByEndpoint: Record<EmulatorEndpoint, number> }): number {
  const { documents, process, result } = counters.requestsByEndpoint;
  return documents + process + result;
}

describe('a source in parts, a part finished by a run killed before it rewrote the source', () => {
  it(
    'collect of the last open part completes statement.pdf.json from the parts on disk; collect of the finalized part rewrites it, nothing sent',
    { timeout: 240_000 },
    async () => {
      const processHeld = holdAnswersUntilReleased({ endpoints: ['process'] });
      // The uploads' answers wait until all three parts are sent: open jobs' work goes first, so once parts 1
      // and 2 were open their held processing would take every request slot from part 3's upload, had its
      // part been cut after they were answered (seen on a loaded machine: the wait for part 3 never ended).
      const uploadsHeld = holdAnswersUntilReleased({ endpoints: ['documents'] });
      const partHeld = holdDocumentsUntilReleased(['process']);
      const emu = (rig.emulator = await startTestEmulator({
        holdAnswer: (endpoint) => processHeld.holdAnswer(endpoint) ?? uploadsHeld.holdAnswer(endpoint),
        holdDocument: partHeld.holdDocument,
      }));
      const events: EmulatorEvent[] = [];
      emu.events.on('event', (event: EmulatorEvent) => events.push(event));
      const ws = makeWorkspace({});
      writeFileSync(join(ws.dir, 'statement.pdf'), await labelledPdf('Statement', 301));
      const env = emulatorEnv(emu);
      const stateDir = env.DOCEXTRACT_STATE_DIR as string;
      const sourceResult = join(ws.out, 'statement.pdf.json');
      const partFile = (pages: string): string => join(ws.out, '.parts', `statement.pdf.p${pages}.json`);
      const extractArgs = ['extract', join(ws.dir, 'statement.pdf'), '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS];
      const manifests = (): { parentJobId: string; part: { index: number } }[] =>
        readJournal(stateDir).filter((record) => record.type === 'manifest') as unknown as { parentJobId: string; part: { index: number } }[];

      // Ctrl-C with parts 1 and 2 open (their processing held), part 3 answered at its upload.
      const first = rig.track(startChildCli(extractArgs, env));
      await waitFor(() => emu.counters.requestsByEndpoint.documents >= 3, 'the three parts uploaded');
      uploadsHeld.release();
      await waitFor(() => manifests().length === 2, "parts 1 and 2's jobs journaled");
      await waitFor(() => completeAt(partFile('301')), 'part 3 answered and written');
      first.child.kill('SIGINT');
      await waitFor(() => first.stderrSoFar().includes('SIGINT: finishing the requests in flight'), 'the run to stop taking work');
      processHeld.release();
      expect((await first.done).code).toBe(130);
      const jobOf = (index: number): string => manifests().find((record) => record.part.index === index)?.parentJobId as string;
      const [jobA, jobB] = [jobOf(0), jobOf(1)];
      expect((JSON.parse(readFileSync(sourceResult, 'utf8')) as SourceResult).parts.map((part) => part.status)).toEqual([
        'interrupted',
        'interrupted',
        'complete',
      ]);

      // The rerun finishes part 1 while part 2's processing is held, and is killed before it could write the source.
      partHeld.hold(events.find((event) => event.type === 'split' && event.jobId === jobB)?.sha256 as string);
      const rerun = rig.track(startChildCli(extractArgs, env));
      await waitFor(() => readJournal(stateDir).some((record) => record.type === 'finalized' && record.parentJobId === jobA), "part 1's job finalized");
      await waitFor(() => completeAt(partFile('1-150')), "part 1's result written");
      rerun.child.kill('SIGKILL');
      await rerun.done;
      // Where the test starts from: the source still says part 1 is interrupted.
      expect((JSON.parse(readFileSync(sourceResult, 'utf8')) as SourceResult).parts.map((part) => part.status)).toEqual([
        'interrupted',
        'interrupted',
        'complete',
      ]);
      partHeld.release();

      // The last open part: its collect reads part 1 from its own result, not from the source's stale listing.
      const collectB = await runCli(['collect', jobB, '--json', ...UNTHROTTLED_FLAGS], { env });
      expectNoStackTrace(collectB.stderr);
      expect(collectB.code, collectB.stderr).toBe(0);
      const after = JSON.parse(readFileSync(sourceResult, 'utf8')) as SourceResult;
      expect(after.status).toBe('complete');
      expect(after.pages).toEqual({ total: 301, processed: 301, missing: [] });
      expect(after.parts.map((part) => [part.status, part.result_file])).toEqual([
        ['complete', partFile('1-150')],
        ['complete', partFile('151-300')],
        ['complete', partFile('301')],
      ]);
      expect(parseNdjson(collectB.stdout)).toEqual([expect.objectContaining({ status: 'complete', output: sourceResult })]);

      // The part whose job was finalized already, and has left the journal since (compacted): collect, told the output folder, finds the
      // part's result there and writes the source again from the parts on disk, and reports it; nothing is sent.
      expect(readJournal(stateDir).some((record) => record.parentJobId === jobA)).toBe(false);
      const sentBefore = countedRequests(emu.counters);
      const collectA = await runCli(['collect', jobA, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env });
      expectNoStackTrace(collectA.stderr);
      expect(collectA.code, collectA.stderr).toBe(0);
      expect(parseNdjson(collectA.stdout)).toEqual([expect.objectContaining({ status: 'complete', output: sourceResult })]);
      expect(JSON.parse(readFileSync(sourceResult, 'utf8'))).toMatchObject({ status: 'complete', pages: { total: 301, processed: 301, missing: [] } });
      expect(countedRequests(emu.counters)).toBe(sentBefore);
    },
  );

  it(
    'every part finished, killed (-9) before the source was written: the rerun of the same extract writes statement.pdf.json complete, with no upload and no charge',
    { timeout: 180_000 },
    async () => {
      // Part 1's finalize (its second `result`, after the one whose answer was saved) is held: its result is on disk, the run not done with it.
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      const hold = { armed: undefined as string | undefined, finalizeHeld: false };
      const emu = (rig.emulator = await startTestEmulator({
        holdDocument: (endpoint, sha256) => {
          if (endpoint !== 'result' || sha256 !== hold.armed) return undefined;
          hold.finalizeHeld = true;
          return released;
        },
      }));
      emu.events.on('event', (event: EmulatorEvent) => {
        if (event.type === 'collect' && hold.armed === undefined && hold.finalizeHeld === false) hold.armed = event.sha256;
      });
      const ws = makeWorkspace({ 'statement.pdf': 'broken/over-limit-151.pdf' });
      const env = emulatorEnv(emu);
      const sourceResult = join(ws.out, 'statement.pdf.json');
      const partFile = (pages: string): string => join(ws.out, '.parts', `statement.pdf.p${pages}.json`);
      const extractArgs = ['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS];

      const first = rig.track(startChildCli(extractArgs, env));
      await waitFor(() => hold.finalizeHeld, "part 1's finalize held");
      await waitFor(() => completeAt(partFile('1-150')) && completeAt(partFile('151')), 'both parts written');
      first.child.kill('SIGKILL');
      await first.done;
      expect(existsSync(sourceResult)).toBe(false);
      // The killed run's held finalize stays held; the rerun's own is not.
      hold.armed = '';
      const uploads = emu.counters.requestsByEndpoint.documents;
      const charged = emu.counters.creditsCharged;

      const rerun = await runCli(extractArgs, { env });
      expectNoStackTrace(rerun.stderr);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(JSON.parse(readFileSync(sourceResult, 'utf8'))).toMatchObject({
        status: 'complete',
        pages: { total: 151, processed: 151, missing: [] },
        parts: [
          { status: 'complete', result_file: partFile('1-150') },
          { status: 'complete', result_file: partFile('151') },
        ],
      });
      expect(parseNdjson(rerun.stdout)).toEqual([expect.objectContaining({ status: 'complete', output: sourceResult })]);
      expect(emu.counters.requestsByEndpoint.documents).toBe(uploads);
      expect(emu.counters.creditsCharged).toBe(charged);
      release();
    },
  );

  it(
    'Ctrl-C in the first part of a 151-page statement extracted with --rate-limit 3/100ms: the command `jobs` gives, run as printed in bash, leaves statement.pdf.json complete, nothing paid twice',
    { timeout: 240_000 },
    async () => {
      const processHeld = holdAnswersUntilReleased({ endpoints: ['process'] });
      const emu = (rig.emulator = await startTestEmulator({ rateLimits: [{ limit: 3, windowMs: 100 }], holdAnswer: processHeld.holdAnswer }));
      const ws = makeWorkspace({});
      writeFileSync(join(ws.dir, 'statement.pdf'), await labelledPdf('Statement', 151));
      const env = emulatorEnv(emu);
      const stateDir = env.DOCEXTRACT_STATE_DIR as string;
      const sourceResult = join(ws.out, 'statement.pdf.json');
      const manifests = (): { part: { index: number } }[] =>
        readJournal(stateDir).filter((record) => record.type === 'manifest') as unknown as { part: { index: number } }[];

      const first = rig.track(startChildCli(['extract', join(ws.dir, 'statement.pdf'), '--out', ws.out, '--json', '--rate-limit', '3/100ms'], env));
      await waitFor(() => manifests().some((record) => record.part.index === 0), "the first part's job journaled");
      first.child.kill('SIGINT');
      await waitFor(() => first.stderrSoFar().includes('SIGINT: finishing the requests in flight'), 'the run to stop taking work');
      processHeld.release();
      const stopped = await first.done;
      expectNoStackTrace(stopped.stderr);
      expect(stopped.code, stopped.stderr).toBe(130);

      // `jobs` gives the open part's collect first, then the run's own command (the source is undone); neither says nothing was sent.
      // (`jobs` runs in this process: what is run as a user would, by bash, is the commands it prints.)
      const listed = await runCli(['jobs'], { env });
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).not.toContain('not started');
      const finish = listed.stdout
        .split('\n')
        .filter((line) => line.trim().startsWith('finish: '))
        .map((line) => line.trim().slice('finish: '.length));
      expect(finish, listed.stdout).toEqual([expect.stringMatching(/^docextract collect job_/), expect.stringMatching(/^docextract extract /)]);

      // Each run exactly as printed, by bash, with `docextract` on PATH the built CLI, in another folder than the run's.
      const bin = mkdtempSync(join(tmpdir(), 'docextract-path-'));
      writeFileSync(join(bin, 'docextract'), `#!/bin/sh\nexec '${process.execPath}' '${DOCEXTRACT_BIN}' "$@"\n`);
      chmodSync(join(bin, 'docextract'), 0o755);
      const asPrinted = (line: string): Promise<{ code: number; stdout: string; stderr: string }> =>
        promisify(execFile)('bash', ['-c', line], { env: { ...env, PATH: `${bin}:${env.PATH ?? ''}` }, cwd: bin }).then(
          (done) => ({ code: 0, ...done }),
          (error: { code: number; stdout: string; stderr: string }) => error,
        );
      const collected = await asPrinted(finish[0] as string);
      expectNoStackTrace(collected.stderr);
      expect(collected.code, collected.stderr).toBe(0);
      expect(JSON.parse(readFileSync(sourceResult, 'utf8'))).toMatchObject({ status: 'complete', pages: { total: 151, processed: 151, missing: [] } });
      // Planned under the run's 3/100ms (2 s for its 52 requests), not the default 10 a minute (which bounds them at over 4 minutes).
      expect(Number(/allowed no less than (\d+)s\)/.exec(collected.stderr)?.[1]), collected.stderr).toBeLessThan(60);
      expect(emu.counters.creditsCharged).toBe(151);

      // The run's own command, as printed, then reuses every part: nothing is sent, and nothing is left undone.
      const sent = countedRequests(emu.counters);
      const rerun = await asPrinted(finish[1] as string);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(countedRequests(emu.counters)).toBe(sent);
      expect((await runCli(['jobs'], { env })).stdout).not.toContain('finish: ');
      expect(emu.counters.creditsCharged).toBe(151);
      expectNoContentUploadedTwice(emu, 2);
    },
  );
});
