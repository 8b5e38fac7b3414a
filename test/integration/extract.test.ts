import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { runCliOnFakeClock } from '../helpers/fake-clock-cli.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { expectNoContentUploadedTwice, UNTHROTTLED_FLAGS, watchFinalizes } from '../helpers/emulator-run.js';
import { MIXED_BATCH, expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../helpers/workspace.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';
const PAGES: Record<string, number> = {
  'scans/receipt.jpg': 1,
  'scans/id-card.png': 1,
  'a/x.pdf': 2,
  'b/x.pdf': 3,
  'short/one.pdf': 1,
  'long/four.pdf': 4,
  'long/linearized.pdf': 7,
  'long/twelve.pdf': 12,
};
const TOTAL_PAGES = Object.values(PAGES).reduce((a, b) => a + b, 0);
const SPLIT_DOCS = Object.values(PAGES).filter((pages) => pages > 3).length;

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function start(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  emulator = await startEmulator({ keys: [KEY], rateLimits: [], ...options });
  return emulator;
}

function cliEnv(emu: RunningEmulator): NodeJS.ProcessEnv {
  return isolatedEnv({ DOCEXTRACT_BASE_URL: emu.url, DOCEXTRACT_API_KEY: KEY });
}

describe('docextract extract', () => {
  it('extracts a mixed batch: one complete result per input, every page in order, one credit per page, finalized after the write', async () => {
    const emu = await start();
    const ws = makeWorkspace(MIXED_BATCH);
    const outputsBySha = new Map(Object.keys(PAGES).map((name) => [sha256Of(join(ws.inputs, name)), join(ws.out, `${name}.json`)]));
    const env = cliEnv(emu);
    const finalizes = watchFinalizes(emu, outputsBySha);

    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none'], { env });

    expect(run.stderr).not.toContain('error');
    expect(run.code).toBe(0);
    const lines = parseNdjson(run.stdout);
    expect(lines).toHaveLength(Object.keys(PAGES).length);
    for (const [name, pages] of Object.entries(PAGES)) {
      const line = lines.find((l) => String(l.file).endsWith(name));
      expect(line, name).toMatchObject({ status: 'complete', pages, output: join(ws.out, `${name}.json`) });
      expect(line?.data).toBeTypeOf('object');
      expectCompleteResult(join(ws.out, `${name}.json`), join(ws.inputs, name), pages);
    }
    expect(emu.counters.creditsCharged).toBe(TOTAL_PAGES);
    expect(finalizes).toEqual({ finalized: SPLIT_DOCS, beforeResult: [] });
    expect(emu.counters.finalizedJobs).toBe(SPLIT_DOCS);
    expectNoContentUploadedTwice(emu, Object.keys(MIXED_BATCH).length);
  });

  it('costs 0 requests on a second run over the same files', async () => {
    const emu = await start();
    const ws = makeWorkspace(MIXED_BATCH);
    const env = cliEnv(emu);
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none'], { env })).code).toBe(0);
    const before = { ...emu.counters.requestsByEndpoint };
    const again = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none'], { env });
    expect(again.code).toBe(0);
    expect(parseNdjson(again.stdout).map((line) => line.status)).toEqual(Object.keys(MIXED_BATCH).map(() => 'complete'));
    expect(emu.counters.requestsByEndpoint).toEqual(before);
  });

  it('never draws a 429 and lets no job expire under scaled-down windows', async () => {
    // The client's gate and the emulator's limiter share a fake clock: real 1 s windows would
    // race the machine's load against the gate's guard.
    const clock = new FakeClock(Date.UTC(2026, 10, 21, 9, 0, 0));
    const emu = await start({
      rateLimits: [
        { limit: 8, windowMs: 1000 },
        { limit: 30, windowMs: 6000 },
      ],
      now: () => clock.now(),
    });
    const ws = makeWorkspace(MIXED_BATCH);
    const run = await runCliOnFakeClock(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', '8/1s,30/6s'], cliEnv(emu), clock);
    expect(run.code).toBe(0);
    expect(emu.counters.rateLimited).toBe(0);
    expect(emu.counters.expiredJobs).toBe(0);
    expect(emu.counters.creditsCharged).toBe(TOTAL_PAGES);
  });

  it('rejects bad inputs per file with the server code names and finishes the rest (a PDF past the page limit goes in parts)', async () => {
    const emu = await start();
    const ws = makeWorkspace({
      'good.pdf': 'pdf/pages-2.pdf',
      'not-a-pdf.pdf': 'broken/not-a-pdf.pdf',
      'empty.pdf': 'broken/empty.pdf',
      'too-many.pdf': 'broken/over-limit-151.pdf',
    });
    const run = await runCli(['extract', ws.inputs, join(ws.dir, 'missing.pdf'), '--out', ws.out, '--json', '--rate-limit', 'none'], { env: cliEnv(emu) });
    expect(run.code).toBe(1);
    const byFile = new Map(parseNdjson(run.stdout).map((line) => [String(line.file).split('/').pop(), line]));
    expect(byFile.get('good.pdf')).toMatchObject({ status: 'complete' });
    expect(byFile.get('not-a-pdf.pdf')).toMatchObject({ status: 'failed', error: { code: 'invalid_file_type' } });
    expect(byFile.get('empty.pdf')).toMatchObject({ status: 'failed', error: { code: 'invalid_file' } });
    // One line for the source sent in parts, its parts inside.
    expect(byFile.get('too-many.pdf')).toMatchObject({
      status: 'complete',
      pages: 151,
      parts: [expect.objectContaining({ status: 'complete' }), expect.objectContaining({ status: 'complete' })],
    });
    expect((byFile.get('too-many.pdf')?.parts as { source_pages: number[] }[]).map((part) => part.source_pages.length)).toEqual([150, 1]);
    expect(byFile.get('missing.pdf')).toMatchObject({ status: 'failed', error: { code: 'file_not_found' } });
    expect(emu.counters.requestsByEndpoint.documents).toBe(3);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('records a synchronous extraction_failed as failed and charged, without retrying it', async () => {
    const emu = await start();
    const ws = makeWorkspace({ 'bad.pdf': 'failing/fail-extraction-2.pdf' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none'], { env: cliEnv(emu) });
    expect(run.code).toBe(1);
    expect(parseNdjson(run.stdout)[0]).toMatchObject({ status: 'failed', error: { code: 'extraction_failed' } });
    expect(emu.counters.requestsByEndpoint.documents).toBe(1);
    expect(emu.counters.creditsCharged).toBe(1);
    expect(parseNdjson(run.stdout)[0]).toMatchObject({ credits: 1 });
  });

  it('counts no credit for a 422 at the upload of a PDF that splits: it was refused at staging, before any extraction', async () => {
    const emu = await start({ faults: { documents: { extraction_failed: 1 } } });
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-7.pdf' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none'], { env: cliEnv(emu) });
    expect(run.code).toBe(1);
    const line = parseNdjson(run.stdout)[0];
    expect(line).toMatchObject({ status: 'failed', credits: 0, error: { code: 'extraction_failed' } });
    expect((line?.error as { message: string }).message).toContain('nothing charged');
    expect(emu.counters.creditsCharged).toBe(0);
  });

  it('lists costs with --dry-run and sends nothing', async () => {
    const emu = await start();
    const ws = makeWorkspace(MIXED_BATCH);
    const run = await runCli(['extract', ws.inputs, '--dry-run', '--json'], { env: cliEnv(emu) });
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.stdout) as { total: { pages: number; credits: number; requests: number } };
    expect(plan.total.pages).toBe(TOTAL_PAGES);
    expect(plan.total.requests).toBe(5 + (1 + 2 + 2) + (1 + 3 + 2) + (1 + 4 + 2));
    expect(Object.values(emu.counters.requestsByEndpoint).reduce((a, b) => a + b, 0)).toBe(0);
  });

  it('leaves a job whose chunks keep failing open and unfinalized, with no result file, and collect <parent_job_id> finishes it', async () => {
    const emu = await start({ faults: { process: { extraction_failed: 1 } }, seed: 1 });
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-7.pdf' });
    const env = cliEnv(emu);
    const first = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(first.code).toBe(1);
    const line = parseNdjson(first.stdout)[0] as { status: string; job_id: string; missing_pages: number[]; error: { code: string } };
    // Not one page came back: failed, not a partial result with nothing in it.
    expect(line.status).toBe('failed');
    expect(line.error.code).toBe('extraction_failed');
    expect(line.missing_pages).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(existsSync(join(ws.out, 'long.pdf.json'))).toBe(false);
    expect(emu.counters.finalizedJobs).toBe(0);
    expect(emu.counters.creditsCharged).toBe(0);

    emu.setFaults({});
    const collected = await runCli(['collect', line.job_id, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(collected.code).toBe(0);
    expect(parseNdjson(collected.stdout)[0]).toMatchObject({ status: 'complete', job_id: line.job_id });
    expectCompleteResult(join(ws.out, 'long.pdf.json'), join(ws.inputs, 'long.pdf'), 7);
    expect(emu.counters.finalizedJobs).toBe(1);
    expect(emu.counters.creditsCharged).toBe(7);
    expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'long.pdf'))]).toBe(1);
  });

  it('collect without a journal entry writes what the server has and names the missing pages', async () => {
    const emu = await start();
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-7.pdf' });
    const form = new FormData();
    form.set('file', new Blob([readFileSync(join(ws.inputs, 'long.pdf'))], { type: 'application/pdf' }), 'long.pdf');
    const manifest = (await (await fetch(`${emu.url}/v3.1/documents`, { method: 'POST', body: form, headers: { authorization: `Bearer ${KEY}` } })).json()) as {
      job_id: string;
      data: { job_id: string }[];
    };
    await fetch(`${emu.url}/v3.1/process?job_id=${manifest.data[0]?.job_id}`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` } });
    const run = await runCli(['collect', manifest.job_id, '--out', ws.out, '--json', '--rate-limit', 'none'], { env: cliEnv(emu) });
    expect(run.code).toBe(1);
    const line = parseNdjson(run.stdout)[0];
    expect(line).toMatchObject({ status: 'partial', missing_pages: [4, 5, 6, 7] });
    expect(existsSync(join(ws.out, `${manifest.job_id}.json`))).toBe(true);
    expect(emu.counters.finalizedJobs).toBe(0);
  });
});
