/**
 * A part finished by any command completes its source (issue 41, item 2): Ctrl-C while the first
 * part of a 151-page statement is being processed, then the command `docextract jobs` gives for the
 * open part. That command finishes the part and rewrites the source's result: `complete`, every
 * page there. Every step waits on a positive signal: the emulator holds its `process` answers from
 * the start, the journal's manifest and the second part's result say where the run is, and the
 * command's own line says it stopped taking work before the hold is lifted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildCli } from '../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, readJournal, startTestEmulator, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { holdAnswersUntilReleased } from '../helpers/held-answers.js';
import { commandRig, completeAt, waitFor } from '../helpers/one-client.js';
import { runCli } from '../helpers/run-cli.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';

const rig = commandRig();

interface SourceResult {
  status: string;
  pages: { total: number; processed: number; missing: number[] };
  parts: { source_pages: number[]; status: string; result_file: string | null; missing_pages: number[] }[];
}

function readSource(path: string): SourceResult {
  return JSON.parse(readFileSync(path, 'utf8')) as SourceResult;
}

describe('a source in parts, interrupted in its first part', () => {
  it(
    'Ctrl-C while part 1 of a 151-page statement is processed; the command `jobs` gives finishes that part and leaves statement.pdf.json complete',
    { timeout: 180_000 },
    async () => {
      // Only the chunks' processing waits: the 1-page second part is answered at its upload, part 1's job is opened.
      const held = holdAnswersUntilReleased({ endpoints: ['process'] });
      const emu = (rig.emulator = await startTestEmulator({ holdAnswer: held.holdAnswer }));
      const ws = makeWorkspace({ 'statement.pdf': 'broken/over-limit-151.pdf' });
      const env = emulatorEnv(emu);
      const stateDir = env.DOCEXTRACT_STATE_DIR as string;
      const sourceResult = join(ws.out, 'statement.pdf.json');

      const run = rig.track(startChildCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], env));
      await waitFor(() => readJournal(stateDir).some((record) => record.type === 'manifest'), "part 1's job journaled");
      await waitFor(() => completeAt(join(ws.out, '.parts', 'statement.pdf.p151.json')), 'part 2 answered and written');
      run.child.kill('SIGINT');
      await waitFor(() => run.stderrSoFar().includes('SIGINT: finishing the requests in flight'), 'the run to stop taking work');
      held.release();
      const stopped = await run.done;
      expectNoStackTrace(stopped.stderr);
      expect(stopped.code, stopped.stderr).toBe(130);
      // Where the test starts from: the source says partial, part 1 interrupted with its pages missing.
      const before = readSource(sourceResult);
      expect(before.status).toBe('partial');
      expect(before.parts.map((part) => part.status)).toEqual(['interrupted', 'complete']);
      expect(before.pages.missing).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
      expect(parseNdjson(stopped.stdout)).toEqual([
        expect.objectContaining({ status: 'interrupted', error: expect.objectContaining({ message: expect.stringMatching(/^pages 1-150 of 151: /) }) }),
      ]);

      // The command `jobs` gives for the open part, run as a person would paste it.
      const jobs = await runCli(['jobs'], { env });
      expect(jobs.code, jobs.stderr).toBe(0);
      const finish = /finish: docextract (.+)$/m.exec(jobs.stdout)?.[1];
      expect(finish, jobs.stdout).toMatch(/^collect \S+$/);
      const collect = await runCli([...(finish as string).split(' '), ...UNTHROTTLED_FLAGS], { env });
      expectNoStackTrace(collect.stderr);
      expect(collect.code, collect.stderr + collect.stdout).toBe(0);

      const after = readSource(sourceResult);
      expect(after.status).toBe('complete');
      expect(after.pages).toEqual({ total: 151, processed: 151, missing: [] });
      expect(after.parts.map((part) => [part.status, part.source_pages.length, part.missing_pages])).toEqual([
        ['complete', 150, []],
        ['complete', 1, []],
      ]);
      expect(after.parts[0]?.result_file).toBe(join(ws.out, '.parts', 'statement.pdf.p1-150.json'));
      // The part collected alone answers the part's own question (its pages of the source), so a rerun reuses it.
      expect(JSON.parse(readFileSync(join(ws.out, '.parts', 'statement.pdf.p1-150.json'), 'utf8'))).toMatchObject({
        status: 'complete',
        source: { pages: 151 },
        question: { pages: Array.from({ length: 150 }, (_, i) => i + 1) },
        source_pages: Array.from({ length: 150 }, (_, i) => i + 1),
      });
      // collect reports the source, the one document the user named.
      expect(collect.stdout).toMatch(/complete\s+\S*statement\.pdf -> \S*out\/statement\.pdf\.json/);
      expect((await runCli(['jobs'], { env })).stdout).toContain('No open jobs');
    },
  );
});
