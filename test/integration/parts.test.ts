/**
 * PDFs past the service's limits (more than 150 pages, or over 10 MB) are cut
 * locally into parts it accepts; each part is a question of its own, and the
 * source gets one result file listing its parts. The PDFs are made here with
 * pdf-lib (never committed), every page saying which page of which file it is.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pageFingerprint, type ReceivedUpload, type RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { labelledPdf } from '../helpers/make-pdf.js';
import { pageTexts } from '../helpers/pdf-pages.js';
import { runCli } from '../helpers/run-cli.js';
import { makeWorkspace, parseNdjson, sha256Of } from '../helpers/workspace.js';

const TEN_MB = 10 * 1024 * 1024;

let long: Buffer;
let scan: Buffer;
beforeAll(async () => {
  [long, scan] = await Promise.all([labelledPdf('Statement', 320), labelledPdf('Scan', 18, { imageBytes: 700_000 })]);
  expect(scan.length).toBeGreaterThan(12 * 1024 * 1024);
});

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

function workspace(): ReturnType<typeof makeWorkspace> {
  const ws = makeWorkspace({});
  mkdirSync(ws.inputs, { recursive: true });
  writeFileSync(join(ws.inputs, 'statement.pdf'), long);
  writeFileSync(join(ws.inputs, 'scan.pdf'), scan);
  return ws;
}

interface PartsResult {
  status: string;
  source: { sha256: string; pages: number };
  source_pages: number[];
  pages: { total: number; missing: number[] };
  credits: number;
  parts: { source_pages: number[]; status: string; data: unknown; job: { parent_job_id: string } | null }[];
}

describe('PDFs past the limits are extracted in parts', () => {
  it('a 320-page PDF and an 18-page 12 MB scan: every upload within the limits, the parts exactly the pages in order, one result file each, every page charged once', async () => {
    const uploads: ReceivedUpload[] = [];
    emulator = await startTestEmulator({ onUpload: (upload) => uploads.push(upload) });
    const env = emulatorEnv(emulator);
    const ws = workspace();
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.code).toBe(0);
    expect(emulator.counters.creditsCharged).toBe(320 + 18);

    const sent = await Promise.all(uploads.map(async (upload) => ({ size: upload.bytes.length, sha256: upload.sha256, texts: await pageTexts(upload.bytes) })));
    // 3 parts of the statement, at least 2 of the 12 MB scan.
    expect(sent.length).toBeGreaterThanOrEqual(5);
    for (const upload of sent) {
      expect(upload.texts.length).toBeLessThanOrEqual(150);
      expect(upload.size).toBeLessThan(TEN_MB);
    }
    for (const [name, bytes, label] of [
      ['statement.pdf', long, 'Statement'],
      ['scan.pdf', scan, 'Scan'],
    ] as const) {
      const parts = sent.filter((upload) => upload.texts[0]?.startsWith(label));
      parts.sort((a, b) => pageNumber(a.texts[0]) - pageNumber(b.texts[0]));
      expect(parts.flatMap((part) => part.texts)).toEqual(await pageTexts(bytes));

      const result = JSON.parse(readFileSync(join(ws.out, `${name}.json`), 'utf8')) as PartsResult;
      expect(result).toMatchObject({ status: 'complete', source: { sha256: sha256Of(join(ws.inputs, name)) }, pages: { missing: [] } });
      expect(result.parts.map((part) => part.status)).toEqual(parts.map(() => 'complete'));
      expect(result.parts.flatMap((part) => part.source_pages)).toEqual(Array.from({ length: result.source.pages }, (_, i) => i + 1));
      expect(result.parts.map((part) => part.source_pages.length)).toEqual(parts.map((part) => part.texts.length));
      // Each part's data is the service's answer for that part's own upload: every one of its pages, by the part's page number.
      result.parts.forEach((part, index) => {
        const upload = parts[index]!;
        expect(part.data, `${name} part ${index + 1}`).toMatchObject({
          source_sha256: upload.sha256,
          page_count: upload.texts.length,
          pages: upload.texts.map((_, i) => expect.objectContaining({ page: i + 1, fingerprint: pageFingerprint(upload.sha256, i + 1) })),
        });
      });
    }
    const statement = JSON.parse(readFileSync(join(ws.out, 'statement.pdf.json'), 'utf8')) as PartsResult;
    expect(statement.parts.map((part) => [part.source_pages[0], part.source_pages.at(-1)])).toEqual([
      [1, 150],
      [151, 300],
      [301, 320],
    ]);
    expect(statement.credits).toBe(320);
    // Size decides the scan's parts, ending on a multiple of 3 pages where it can.
    const scanned = JSON.parse(readFileSync(join(ws.out, 'scan.pdf.json'), 'utf8')) as PartsResult;
    expect(scanned.parts.length).toBeGreaterThanOrEqual(2);
    expect(scanned.parts.slice(0, -1).map((part) => part.source_pages.length % 3)).toEqual(scanned.parts.slice(0, -1).map(() => 0));
    // The output folder holds one result per source (the parts' own results are kept out of sight).
    expect(
      readdirSync(ws.out)
        .filter((name) => !name.startsWith('.'))
        .sort(),
    ).toEqual(['scan.pdf.json', 'statement.pdf.json']);

    // export: one row per part, with its pages.
    const exported = await runCli(['export', ws.out, '--out', '-', '--format', 'ndjson'], { env });
    expect(exported.code).toBe(0);
    const rows = parseNdjson(exported.stdout).filter((row) => String(row.source_file).endsWith('statement.pdf'));
    expect(rows.map((row) => [row.source_pages, row.pages, row.status])).toEqual([
      ['1-150', 150, 'complete'],
      ['151-300', 150, 'complete'],
      ['301-320', 20, 'complete'],
    ]);

    const before = { ...emulator.counters.requestsByEndpoint };
    const again = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(again.code).toBe(0);
    expect({ ...emulator.counters.requestsByEndpoint, models: before.models }).toEqual(before);
    // One line per source, as on the first run, each part answered already.
    expect(parseNdjson(again.stdout)).toEqual([
      expect.objectContaining({ status: 'complete', credits: 0 }),
      expect.objectContaining({ status: 'complete', credits: 0 }),
    ]);
    expect(existsSync(join(ws.out, 'statement.pdf.json'))).toBe(true);
  });

  it('--dry-run shows each part with its pages and credits, and sends nothing', async () => {
    emulator = await startTestEmulator();
    const ws = workspace();
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--dry-run', '--json'], { env: emulatorEnv(emulator) });
    expect(run.code).toBe(0);
    const preview = JSON.parse(run.stdout) as { files: { file: string; pages: number; credits: number }[]; total: Record<string, number> };
    expect(preview.total.credits).toBe(320 + 18);
    // Two documents, each a line per part: counted as two files, and the parts said (issue 52: each part counted as a file).
    expect(preview.total).toMatchObject({ files: 2, reused: 0, in_parts: 2, parts: preview.files.length });
    const text = await runCli(['extract', ws.inputs, '--out', ws.out, '--dry-run'], { env: emulatorEnv(emulator) });
    expect(text.stdout).toContain(
      `total: 2 files (0 answered already; 2 of them in parts, a line per part: ${preview.files.length} parts), 338 pages to extract`,
    );
    expect(preview.files.filter((file) => file.file.includes('statement.pdf')).map((file) => file.pages)).toEqual([150, 150, 20]);
    expect(preview.files.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...preview.files.map((file) => file.pages))).toBeLessThanOrEqual(150);
    expect(emulator.counters.requestsByEndpoint.documents).toBe(0);
    expect(statSync(join(ws.inputs, 'scan.pdf')).size).toBeGreaterThan(TEN_MB);
  });

  it('--pages on a PDF past the limits cuts only the chosen pages, in parts when they are still too many', async () => {
    const uploads: ReceivedUpload[] = [];
    emulator = await startTestEmulator({ onUpload: (upload) => uploads.push(upload) });
    const ws = workspace();
    const run = await runCli(
      ['extract', ws.inputs, '--out', ws.out, '--pages', 'statement.pdf=1-200', '--pages', 'scan.pdf=-1', '--json', ...UNTHROTTLED_FLAGS],
      { env: emulatorEnv(emulator) },
    );
    expect(run.code).toBe(0);
    expect(emulator.counters.creditsCharged).toBe(200 + 1);
    expect(uploads).toHaveLength(3);
    const result = JSON.parse(readFileSync(join(ws.out, 'statement.pdf.p1-200.json'), 'utf8')) as PartsResult;
    expect(result.parts.map((part) => part.source_pages.length)).toEqual([150, 50]);
    expect(JSON.parse(readFileSync(join(ws.out, 'scan.pdf.p18.json'), 'utf8'))).toMatchObject({ status: 'complete', source_pages: [18] });
  });
});

function pageNumber(text: string | undefined): number {
  return Number(/page (\d+) of/.exec(text ?? '')?.[1] ?? NaN);
}

describe('checks of a PDF extracted in parts', () => {
  it('each part is checked on its own; the source result holds one verdict naming the parts, and docextract check gives the same', async () => {
    emulator = await startTestEmulator();
    const env = emulatorEnv(emulator);
    const ws = makeWorkspace({ 'long.pdf': 'broken/over-limit-151.pdf' });
    const schema = join(ws.dir, 'invoice.schema.json');
    writeFileSync(schema, JSON.stringify({ type: 'object', required: ['not_there'] }));
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--schema', `invoice=${schema}`, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(5);
    const result = JSON.parse(readFileSync(join(ws.out, 'long.pdf.json'), 'utf8')) as { checks: { passed: boolean; problems: { path: string }[] } };
    expect(result.checks.passed).toBe(false);
    expect(result.checks.problems.map((problem) => problem.path)).toEqual(['parts.0.data.not_there', 'parts.1.data.not_there']);
    const check = await runCli(['check', ws.out, '--schema', `invoice=${schema}`, '--json'], { env });
    expect(check.code).toBe(5);
    expect(parseNdjson(check.stdout)).toEqual([expect.objectContaining({ checks: result.checks }), expect.objectContaining({ kind: 'summary', results: 1 })]);
  });
});

describe('a PDF over 10 MB that our counter cannot count', () => {
  it('is counted by pdf-lib and cut to what its pages use', async () => {
    const uploads: ReceivedUpload[] = [];
    emulator = await startTestEmulator({ onUpload: (upload) => uploads.push(upload) });
    const ws = makeWorkspace({ 'no-count.pdf': 'pdf/page-tree-without-count-3.pdf' });
    const path = join(ws.inputs, 'no-count.pdf');
    // 11 MB of comment after the end: the file is past the limit, its pages are not.
    writeFileSync(path, Buffer.concat([readFileSync(path), Buffer.from('\n%'), Buffer.alloc(11 * 1024 * 1024, 'x'), Buffer.from('\n')]));
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env: emulatorEnv(emulator) });
    expect(run.code).toBe(0);
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.bytes.length).toBeLessThan(1024 * 1024);
    expect(await pageTexts(uploads[0]!.bytes)).toEqual(await pageTexts(readFileSync(path)));
    expect(JSON.parse(readFileSync(join(ws.out, 'no-count.pdf.json'), 'utf8'))).toMatchObject({
      status: 'complete',
      source: { pages: 3 },
      parts: [{ source_pages: [1, 2, 3] }],
    });
  });
});
