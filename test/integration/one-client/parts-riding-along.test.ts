/**
 * A PDF past the service's limits, extracted by a command riding along on
 * another (issue 27): it is one document of the command that asked. Its
 * folder gets the one result listing every part; its command prints one
 * NDJSON line naming that result; each command's lines and summary count
 * its own documents only. The second command joined the host (the host's
 * record, commands.json), or the test fails: a command that waited and then
 * ran alone would end with the same files.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EmulatorRequestLog, ReceivedUpload } from '../../../src/emulator/index.js';
import { startChildCli } from '../../helpers/child-run.js';
import { firstUpload, holdAnswersUntilReleased, waitForClient } from '../../helpers/held-answers.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { commandRig } from '../../helpers/one-client.js';
import { inProcessCommands } from '../../helpers/in-process-command.js';
import { runCli } from '../../helpers/run-cli.js';
import { labelledPdf } from '../../helpers/make-pdf.js';
import { pageTexts } from '../../helpers/pdf-pages.js';
import { makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';

const rig = commandRig();
const track = rig.track;
// The host is a process, the command riding along runs in this one: the host's record lists each under its own pid.
const inProcess = inProcessCommands();

describe('a PDF in parts, riding along', () => {
  it(
    'two extracts, the second of a 320-page statement riding along: one result naming its sha256 with parts 1-320 in order, one NDJSON line naming it, every page uploaded once, each command counting its own credits',
    { timeout: 120_000 },
    async () => {
      const uploads: ReceivedUpload[] = [];
      const held = holdAnswersUntilReleased();
      const emu = (rig.emulator = await startTestEmulator({ holdAnswer: held.holdAnswer, onUpload: (upload) => uploads.push(upload) }));
      const uploaded = firstUpload(emu);

      const ws = makeWorkspace({});
      const small = join(ws.dir, 'a');
      const big = join(ws.dir, 'b');
      mkdirSync(small, { recursive: true });
      mkdirSync(big, { recursive: true });
      // 20 distinct 2-page PDFs (40 pages) for the host; the statement for the command riding along.
      await Promise.all(Array.from({ length: 20 }, async (_, i) => writeFileSync(join(small, `invoice-${i}.pdf`), await labelledPdf(`Invoice ${i}`, 2))));
      const statement = await labelledPdf('Statement', 320);
      writeFileSync(join(big, 'statement.pdf'), statement);

      const env = emulatorEnv(emu);
      const stateDir = env.DOCEXTRACT_STATE_DIR as string;
      const args = (folder: string, out: string): string[] => ['extract', folder, '--out', out, '--json', '--rate-limit', 'none', ...FAST_FLAGS];
      const host = track(startChildCli(args(small, join(ws.dir, 'outa')), env));
      await uploaded; // the first command holds the state folder and hosts
      const rider = inProcess(args(big, join(ws.dir, 'outb')), env);
      await waitForClient(stateDir, 'the second command to join the host', rider.pid);
      held.release();
      const [a, b] = await Promise.all([host.done, rider.done]);

      for (const run of [a, b]) {
        expectNoStackTrace(run.stderr);
        expect(run.code, run.stderr).toBe(0);
      }
      // The host's own lines: its 20 files, 40 credits; none of the statement's parts.
      const hostLines = parseNdjson(a.stdout);
      expect(hostLines).toHaveLength(20);
      expect(hostLines.reduce((sum, line) => sum + Number(line.credits), 0)).toBe(40);
      expect(a.stderr).toMatch(/ 40 credits · /);
      expect(a.stderr).not.toContain('statement.pdf');

      // The rider's one line names the source's one result, its parts inside.
      const riderLines = parseNdjson(b.stdout);
      const output = join(ws.dir, 'outb', 'statement.pdf.json');
      expect(riderLines).toHaveLength(1);
      expect(riderLines[0]).toMatchObject({ status: 'complete', output, credits: 320, pages: 320 });
      const parts = (riderLines[0]?.parts ?? []) as { source_pages: number[]; status: string; output: string }[];
      expect(parts.map((part) => [part.source_pages[0], part.source_pages.at(-1), part.status])).toEqual([
        [1, 150, 'complete'],
        [151, 300, 'complete'],
        [301, 320, 'complete'],
      ]);
      expect(b.stderr).toMatch(/ 320 credits · /);

      const result = JSON.parse(readFileSync(output, 'utf8')) as { status: string; source: { sha256: string }; parts: { source_pages: number[] }[] };
      expect(result.status).toBe('complete');
      expect(result.source.sha256).toBe(sha256Of(join(big, 'statement.pdf')));
      expect(result.parts.flatMap((part) => part.source_pages)).toEqual(Array.from({ length: 320 }, (_, i) => i + 1));

      // Every page uploaded once: the statement's parts are exactly its pages, in order, and nothing else was sent twice.
      const statementUploads = await Promise.all(uploads.map(async (upload) => pageTexts(upload.bytes)));
      const sentOfStatement = statementUploads.filter((texts) => texts[0]?.startsWith('Statement')).sort((x, y) => pageOf(x[0]) - pageOf(y[0]));
      expect(sentOfStatement.flat()).toEqual(await pageTexts(statement));
      expect(uploads).toHaveLength(20 + 3);
      expect(emu.counters.creditsCharged).toBe(40 + 320);
    },
  );
  it(
    'a part that fails while riding along: the source is partial with that part failed, the command exits 1; a rerun pays only for that part',
    { timeout: 120_000 },
    async () => {
      const held = holdAnswersUntilReleased();
      const requests: EmulatorRequestLog[] = [];
      const uploads: ReceivedUpload[] = [];
      const emu = (rig.emulator = await startTestEmulator({
        holdAnswer: held.holdAnswer,
        onUpload: (upload) => uploads.push(upload),
        onRequest: (entry) => requests.push(entry),
      }));
      const ws = makeWorkspace({ 'a/x.png': 'images/id-card.png', 'a/y.jpg': 'images/receipt.jpg' });
      const big = join(ws.dir, 'b');
      mkdirSync(big, { recursive: true });
      // 320 pages; page 200 (of the second part, 151-300) carries the emulator's marker for a failed extraction.
      writeFileSync(join(big, 'statement.pdf'), await labelledPdf('Statement', 320, { failingPage: 200 }));
      const env = emulatorEnv(emu);
      const stateDir = env.DOCEXTRACT_STATE_DIR as string;
      const args = (folder: string, out: string): string[] => ['extract', folder, '--out', out, '--json', '--rate-limit', 'none', ...FAST_FLAGS];
      const hosting = firstUpload(emu);
      const host = track(startChildCli(args(join(ws.inputs, 'a'), join(ws.dir, 'outa')), env));
      await hosting;
      const rider = inProcess(args(big, join(ws.dir, 'outb')), env);
      await waitForClient(stateDir, 'the second command to join the host', rider.pid);
      held.release();
      const [a, b] = await Promise.all([host.done, rider.done]);
      expectNoStackTrace(b.stderr);
      expect(a.code, a.stderr).toBe(0);
      expect(b.code, b.stderr).toBe(1);
      const [line, ...more] = parseNdjson(b.stdout);
      expect(more).toEqual([]);
      expect(line).toMatchObject({ status: 'partial', output: join(ws.dir, 'outb', 'statement.pdf.json') });
      const parts = (line?.parts ?? []) as { source_pages: number[]; status: string; error?: { code: string } | null }[];
      expect(parts.map((part) => [part.source_pages[0], part.source_pages.at(-1), part.status])).toEqual([
        [1, 150, 'complete'],
        [151, 300, 'failed'],
        [301, 320, 'complete'],
      ]);
      expect(parts[1]?.error?.code).toBe('extraction_failed');

      // Which upload was which part: by the pages it carried.
      const partOf = async (upload: ReceivedUpload): Promise<number> =>
        upload.bytes.subarray(0, 5).toString('latin1') === '%PDF-' ? pageOf((await pageTexts(upload.bytes))[0]) : 0;
      const firstPages = await Promise.all(uploads.map(partOf));
      const failing = uploads[firstPages.indexOf(151)]?.sha256;
      expect(failing).toBeDefined();
      const rerunFrom = requests.length;
      const uploadsBefore = uploads.length;

      const rerun = await runCli(args(big, join(ws.dir, 'outb')), { env });
      expect(rerun.code, rerun.stderr).toBe(1);
      expect(parseNdjson(rerun.stdout)).toHaveLength(1);
      // Only the failed part is asked about again: the two complete parts cost nothing, nothing else is uploaded.
      const asked = requests.slice(rerunFrom).filter((entry) => entry.endpoint !== 'models' && entry.endpoint !== 'health');
      expect(asked.length).toBeGreaterThan(0);
      expect(new Set(asked.map((entry) => entry.sha256))).toEqual(new Set([failing]));
      expect((await Promise.all(uploads.slice(uploadsBefore).map(partOf))).every((first) => first === 151)).toBe(true);
    },
  );
});

function pageOf(text: string | undefined): number {
  return Number(/page (\d+) of/.exec(text ?? '')?.[1] ?? 0);
}
