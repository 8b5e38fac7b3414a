/**
 * `--pages`: only the chosen pages of each PDF are cut out locally and sent.
 * Every upload the emulator receives is read back with pdf-lib and compared,
 * page by page, with the text of the source pages it should hold.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReceivedUpload, RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { pageTexts } from '../helpers/pdf-pages.js';
import { runCli } from '../helpers/run-cli.js';
import { makeWorkspace, parseNdjson, sha256Of } from '../helpers/workspace.js';

/** Six multi-page PDFs, by name in the workspace: corpus file and page count. */
const SIX: Record<string, { source: string; pages: number }> = {
  'two.pdf': { source: 'pdf/pages-2.pdf', pages: 2 },
  'three.pdf': { source: 'pdf/pages-3.pdf', pages: 3 },
  'four.pdf': { source: 'pdf/pages-4.pdf', pages: 4 },
  'six.pdf': { source: 'pdf/qpdf-object-streams-6.pdf', pages: 6 },
  'seven.pdf': { source: 'pdf/linearized-7.pdf', pages: 7 },
  'twelve.pdf': { source: 'pdf/pages-12.pdf', pages: 12 },
};
const SIX_FILES = Object.fromEntries(Object.entries(SIX).map(([name, file]) => [name, file.source]));

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function start(): Promise<{ emu: RunningEmulator; env: NodeJS.ProcessEnv; uploads: ReceivedUpload[] }> {
  const uploads: ReceivedUpload[] = [];
  emulator = await startTestEmulator({ onUpload: (upload) => uploads.push(upload) });
  return { emu: emulator, env: emulatorEnv(emulator), uploads };
}

interface PagesResult {
  status: string;
  source: { path: string; sha256: string; pages: number };
  question: { pages?: number[] };
  source_pages: number[];
  credits: number;
}

function resultAt(path: string): PagesResult {
  return JSON.parse(readFileSync(path, 'utf8')) as PagesResult;
}

/** Each upload holds exactly the expected source pages of one input, in order: its texts are those pages' texts. */
async function expectUploadsAre(uploads: readonly ReceivedUpload[], inputs: string, expected: Record<string, number[]>): Promise<void> {
  const wanted = await Promise.all(
    Object.entries(expected).map(async ([name, pages]) => {
      const texts = await pageTexts(readFileSync(join(inputs, name)));
      return { name, texts: pages.map((page) => texts[page - 1]) };
    }),
  );
  const sent = await Promise.all(uploads.map(async (upload) => pageTexts(upload.bytes)));
  expect(sent.map((texts) => JSON.stringify(texts)).sort()).toEqual(wanted.map((file) => JSON.stringify(file.texts)).sort());
  // Each page says which page of which file it is: a wrong page could not match.
  for (const file of wanted) expect(new Set(file.texts).size).toBe(file.texts.length);
}

describe('--pages sends only the chosen pages', () => {
  it("--pages 1 over six multi-page PDFs costs 6 credits, each upload is its source's first page, and the same command again sends nothing", async () => {
    const { emu, env, uploads } = await start();
    const ws = makeWorkspace(SIX_FILES);
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--pages', '1', '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(0);
    expect(emu.counters.creditsCharged).toBe(6);
    expect(uploads).toHaveLength(6);
    await expectUploadsAre(uploads, ws.inputs, Object.fromEntries(Object.keys(SIX).map((name) => [name, [1]])));
    for (const upload of uploads) expect((await pageTexts(upload.bytes)).length).toBe(1);
    for (const name of Object.keys(SIX)) {
      const result = resultAt(join(ws.out, `${name}.p1.json`));
      expect(result).toMatchObject({ status: 'complete', source_pages: [1], question: { pages: [1] }, credits: 1 });
      expect(result.source).toMatchObject({ sha256: sha256Of(join(ws.inputs, name)), pages: SIX[name]?.pages });
      expect(existsSync(join(ws.out, `${name}.json`))).toBe(false);
    }
    expect(parseNdjson(run.stdout)).toEqual(Object.keys(SIX).map(() => expect.objectContaining({ status: 'complete', pages: 1, credits: 1 })));

    const requests = { ...emu.counters.requestsByEndpoint };
    const again = await runCli(['extract', ws.inputs, '--out', ws.out, '--pages', '1', '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(again.code).toBe(0);
    expect({ ...emu.counters.requestsByEndpoint, models: requests.models }).toEqual(requests);
    expect(uploads).toHaveLength(6);
    expect(parseNdjson(again.stdout)).toEqual(
      Object.keys(SIX).map(() => expect.objectContaining({ status: 'complete', credits: 0, reused: expect.stringContaining('pages 1') })),
    );
  });

  it('--pages 1,-1 sends the first and the last page; a 2-page PDF, all of whose pages that is, goes as it is', async () => {
    const { emu, env, uploads } = await start();
    const ws = makeWorkspace(SIX_FILES);
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--pages', '1,-1', '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(0);
    expect(emu.counters.creditsCharged).toBe(12);
    const expected = Object.fromEntries(Object.entries(SIX).map(([name, file]) => [name, [1, file.pages]]));
    await expectUploadsAre(uploads, ws.inputs, expected);
    // The whole document: the file itself, and the whole document's question and result.
    expect(uploads.some((upload) => upload.sha256 === sha256Of(join(ws.inputs, 'two.pdf')))).toBe(true);
    expect(resultAt(join(ws.out, 'two.pdf.json'))).toMatchObject({ source_pages: [1, 2] });
    expect(resultAt(join(ws.out, 'two.pdf.json')).question.pages).toBeUndefined();
    expect(resultAt(join(ws.out, 'twelve.pdf.p1,12.json'))).toMatchObject({ status: 'complete', source_pages: [1, 12], question: { pages: [1, 12] } });
  });

  it('a range across a chunk boundary is split like any 7-page PDF, and its result names the source pages', async () => {
    const { emu, env, uploads } = await start();
    const ws = makeWorkspace({ 'twelve.pdf': 'pdf/pages-12.pdf' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--pages', '2-8', '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(0);
    expect(emu.counters.creditsCharged).toBe(7);
    expect(emu.counters.requestsByEndpoint.process).toBe(3);
    await expectUploadsAre(uploads, ws.inputs, { 'twelve.pdf': [2, 3, 4, 5, 6, 7, 8] });
    expect(resultAt(join(ws.out, 'twelve.pdf.p2-8.json'))).toMatchObject({ status: 'complete', source_pages: [2, 3, 4, 5, 6, 7, 8], credits: 7 });
  });

  it('another selection is another question: its result is written beside the first, which stays; each is paid once', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ 'four.pdf': 'pdf/pages-4.pdf' });
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--pages', '1', '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    const first = readFileSync(join(ws.out, 'four.pdf.p1.json'), 'utf8');
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--pages', '-1', '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(emu.counters.creditsCharged).toBe(1 + 1 + 4);
    expect(readFileSync(join(ws.out, 'four.pdf.p1.json'), 'utf8')).toBe(first);
    expect(resultAt(join(ws.out, 'four.pdf.p4.json')).source_pages).toEqual([4]);
    expect(resultAt(join(ws.out, 'four.pdf.json')).source_pages).toEqual([1, 2, 3, 4]);
    for (const pages of ['1', '-1', 'all'])
      expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--pages', pages, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(emu.counters.creditsCharged).toBe(6);
  });

  it('per-path rules: the first matching glob chooses, and files no rule matches send every page', async () => {
    const { emu, env, uploads } = await start();
    const ws = makeWorkspace({ 'invoices/a.pdf': 'pdf/pages-4.pdf', 'statements/b.pdf': 'pdf/pages-3.pdf', 'other/c.pdf': 'pdf/pages-2.pdf' });
    const run = await runCli(
      ['extract', ws.inputs, '--out', ws.out, '--pages', 'invoices/**=1', '--pages', 'statements/**=all', '--json', ...UNTHROTTLED_FLAGS],
      { env },
    );
    expect(run.code).toBe(0);
    expect(emu.counters.creditsCharged).toBe(1 + 3 + 2);
    await expectUploadsAre(uploads, ws.inputs, { 'invoices/a.pdf': [1], 'statements/b.pdf': [1, 2, 3], 'other/c.pdf': [1, 2] });
    expect(existsSync(join(ws.out, 'invoices/a.pdf.p1.json'))).toBe(true);
  });

  it('--dry-run --pages 1-2 over the six shows 12 credits, and sends nothing', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace(SIX_FILES);
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--dry-run', '--pages', '1-2', '--json'], { env });
    expect(run.code).toBe(0);
    const preview = JSON.parse(run.stdout) as {
      files: { pages: number; credits: number; requests: number; mode: string }[];
      total: { credits: number; requests: number };
    };
    expect(preview.total).toMatchObject({ credits: 12, requests: 6 });
    expect(preview.files).toEqual(Object.keys(SIX).map(() => expect.objectContaining({ pages: 2, credits: 2, requests: 1, mode: 'sync' })));
    expect(emu.counters.requestsByEndpoint.documents).toBe(0);
  });

  it('--max-credits counts the pages sent', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace(SIX_FILES);
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--pages', '1', '--max-credits', '6', '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(0);
    expect(emu.counters.creditsCharged).toBe(6);
  });
});

describe('selections that cannot be sent', () => {
  it('--pages 40 on a 6-page PDF fails that file with page_out_of_range, its page count and nothing sent; the rest goes on', async () => {
    const { emu, env, uploads } = await start();
    const ws = makeWorkspace({ 'six.pdf': 'pdf/qpdf-object-streams-6.pdf', 'big.pdf': 'pdf/pages-60.pdf' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--pages', '40', '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(1);
    const lines = parseNdjson(run.stdout);
    const six = lines.find((line) => String(line.file).endsWith('six.pdf'));
    expect(six).toMatchObject({ status: 'failed', pages: 6, error: { code: 'page_out_of_range' } });
    expect((six?.error as { message: string }).message).toMatch(/six\.pdf has 6 pages; --pages 40: page 40 is not in it/);
    expect(lines.find((line) => String(line.file).endsWith('big.pdf'))).toMatchObject({ status: 'complete', pages: 1 });
    expect(uploads).toHaveLength(1);
    expect(uploads[0]?.sha256).not.toBe(sha256Of(join(ws.inputs, 'six.pdf')));
    expect(emu.counters.creditsCharged).toBe(1);
  });

  it.each(['1-x', '0', '3-1', '', '1,,2'])('a malformed selection (%j) is a usage error, exit 2, before anything is sent', async (selection) => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ 'four.pdf': 'pdf/pages-4.pdf' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--pages', selection, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--pages');
    expect(Object.values(emu.counters.requestsByEndpoint).reduce((sum, count) => sum + count, 0)).toBe(0);
  });

  it('an image is page 1: --pages 1 sends it as it is, --pages 2 fails it', async () => {
    const { emu, env, uploads } = await start();
    const ws = makeWorkspace({ 'id.png': 'images/id-card.png' });
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--pages', '1', '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(uploads.map((upload) => upload.sha256)).toEqual([sha256Of(join(ws.inputs, 'id.png'))]);
    expect(resultAt(join(ws.out, 'id.png.json'))).toMatchObject({ status: 'complete', source_pages: [1] });
    const two = await runCli(['extract', ws.inputs, '--out', ws.out, '--pages', '2', '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(two.code).toBe(1);
    expect(parseNdjson(two.stdout)[0]).toMatchObject({ status: 'failed', pages: 1, error: { code: 'page_out_of_range' } });
    expect(emu.counters.requestsByEndpoint.documents).toBe(1);
  });

  it('--dry-run refuses what the run refuses: an encrypted PDF whose pages must be cut is rejected in both, and both count 12 credits and 6 requests', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ ...SIX_FILES, 'encrypted-006.pdf': 'pdf/encrypted-aes256-4.pdf' });
    const flags = ['--out', ws.out, '--pages', '1,-1', '--json', ...UNTHROTTLED_FLAGS];
    const dry = await runCli(['extract', ws.inputs, '--dry-run', ...flags], { env });
    expect(dry.code, dry.stderr).toBe(1);
    const preview = JSON.parse(dry.stdout) as {
      files: { file: string }[];
      rejected: { file: string; error: { code: string } }[];
      total: { files: number; pages: number; credits: number; requests: number };
    };
    expect(preview.rejected).toEqual([
      expect.objectContaining({ file: expect.stringContaining('encrypted-006.pdf'), error: expect.objectContaining({ code: 'pdf_encrypted' }) }),
    ]);
    expect(preview.files.map((f) => f.file)).not.toContainEqual(expect.stringContaining('encrypted-006.pdf'));
    expect(preview.total).toMatchObject({ files: 6, pages: 12, credits: 12, requests: 6 });
    expect(emu.counters.requestsByEndpoint.documents).toBe(0);

    const run = await runCli(['extract', ws.inputs, ...flags], { env });
    expect(run.code, run.stderr).toBe(1);
    expect(
      parseNdjson(run.stdout)
        .filter((line) => line.status === 'failed')
        .map((line) => (line.error as { code: string }).code),
    ).toEqual(['pdf_encrypted']);
    expect(emu.counters.requestsByEndpoint.documents).toBe(preview.total.requests);
    expect(emu.counters.creditsCharged).toBe(preview.total.credits);
  });

  it('an encrypted PDF cannot be cut: a clear error naming qpdf --decrypt, and nothing sent; whole, it is sent as before', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ 'locked.pdf': 'pdf/encrypted-rc4-128-2.pdf' });
    const cut = await runCli(['extract', ws.inputs, '--out', ws.out, '--pages', '1', '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(cut.code).toBe(1);
    const line = parseNdjson(cut.stdout)[0];
    expect(line).toMatchObject({ status: 'failed', error: { code: 'pdf_encrypted' } });
    expect((line?.error as { message: string }).message).toContain('qpdf --decrypt');
    expect(emu.counters.requestsByEndpoint.documents).toBe(0);
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--pages', 'all', '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(emu.counters.requestsByEndpoint.documents).toBe(1);
  });
});
