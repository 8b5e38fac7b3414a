import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { resultDocument } from '../helpers/result-document.js';
import { startReviewCli, type RunningReview } from '../helpers/review-run.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';

const LEVELS = 200_000;
/** The data the security review sent: one key holding lists 200,000 deep. */
const DEEP_DATA = `{"a":${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}}`;

let emulator: RunningEmulator | undefined;
let stub: Server | undefined;
let review: RunningReview | undefined;
afterEach(async () => {
  await review?.stop();
  review = undefined;
  await new Promise((resolve) => (stub ? stub.close(resolve) : resolve(undefined)));
  await emulator?.close();
  stub = undefined;
  emulator = undefined;
});

/**
 * The emulator behind a relay that answers `documents` itself, with a 200
 * whose data is DEEP_DATA (the emulator writes its answers with
 * JSON.stringify, which cannot write such data); every other request goes to
 * the emulator as it is.
 */
async function deepService(emu: RunningEmulator): Promise<string> {
  const upstream = new URL(emu.url);
  stub = createServer((req, res) => {
    if (req.method === 'POST' && (req.url ?? '').includes('/documents')) {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"success":true,"data":${DEEP_DATA},"model_used":"invoice","pages":1,"processing_time_ms":5}`);
      });
      return;
    }
    const relayed = request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(relayed);
  });
  await new Promise<void>((resolve) => stub?.listen(0, '127.0.0.1', resolve));
  const { port } = stub.address() as AddressInfo;
  return `http://127.0.0.1:${port}${upstream.pathname === '/' ? '' : upstream.pathname}`;
}

describe('data nested past the cap', () => {
  it('is refused as result_too_deep, and the answer paid for is kept whole on disk as text; the output folder is not blamed', async () => {
    emulator = await startTestEmulator();
    const base = await deepService(emulator);
    const ws = makeWorkspace({ 'scan.png': 'images/id-card.png' });
    const env = emulatorEnv(emulator, { DOCEXTRACT_BASE_URL: base });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--model', 'invoice', '--json', ...UNTHROTTLED_FLAGS], { env });
    const [line] = parseNdjson(run.stdout) as { status: string; output: string | null; error?: { code: string; message: string }; credits: number }[];
    expect(line?.error?.code, run.stderr).toBe('result_too_deep');
    expect(line?.error?.message).not.toMatch(/output folder/);
    expect(run.stderr).not.toMatch(/output_write_failed|fix the output folder/);
    expect(line?.output).toBe(join(ws.out, 'scan.png.json'));
    const kept = JSON.parse(readFileSync(join(ws.out, 'scan.png.json'), 'utf8')) as {
      status: string;
      data: unknown;
      data_text: string;
      data_error: { code: string };
    };
    expect(kept).toMatchObject({ status: 'complete', data: null, data_error: { code: 'result_too_deep' } });
    expect(kept.data_text).toBe(DEEP_DATA);
    expect(line?.credits).toBe(1);
    // Asked again, the answer on disk is reused, not paid for twice, and still named for what it is.
    const again = await runCli(['extract', ws.inputs, '--out', ws.out, '--model', 'invoice', '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(parseNdjson(again.stdout)[0], again.stderr).toMatchObject({ credits: 0, error: { code: 'result_too_deep' } });
  });
});

/** A result file as docextract writes them, with `data` given as text. */
function resultWithData(dataText: string): string {
  // The data goes in as text: JSON.stringify cannot write data this deep.
  const { data: _data, ...result } = resultDocument('/nowhere/deep.pdf', null, 'cd'.repeat(32));
  return `${JSON.stringify(result).slice(0, -1)},"data":${dataText}}\n`;
}

describe('a result file whose data nests 3,000 levels deep', () => {
  it('is refused with a clear message by the review page, export and check, and the others are served', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'docextract-deep-'));
    const results = join(dir, 'results');
    mkdirSync(results);
    writeFileSync(join(results, 'deep.pdf.json'), resultWithData(`{"total":1,"x":${'{"b":'.repeat(3000)}1${'}'.repeat(3000)}}`));
    writeFileSync(join(results, 'fine.pdf.json'), resultWithData('{"total":2}'));
    const env = isolatedEnv();
    review = await startReviewCli([results], env);
    const answer = await fetch(`${review.url}api/document?id=deep.pdf.json`);
    expect(answer.status).toBe(200);
    const view = (await answer.json()) as { data: unknown; form: { problems: string[]; nodes: unknown[]; editable: boolean }[] };
    expect(view.data).toBeNull();
    expect(view.form).toEqual([expect.objectContaining({ editable: false, nodes: [], problems: [expect.stringMatching(/nests deeper than 64 levels/)] })]);
    const save = await fetch(`${review.url}api/document?id=deep.pdf.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ values: { total: '3' }, approved: true }),
    });
    expect(save.status).toBe(422);
    expect((await fetch(`${review.url}api/documents`)).status).toBe(200);

    const exported = await runCli(['export', results, '--out', join(dir, 'tables')], { env });
    expect(exported.code).toBe(1);
    expect(exported.stderr).toMatch(/deep\.pdf\.json: its data nests deeper than 64 levels, more than docextract reads as data \(result_too_deep\)/);
    expect(readFileSync(join(dir, 'tables', 'invoice.csv'), 'utf8')).toContain('fine.pdf.json');

    writeFileSync(join(dir, 'schema.json'), JSON.stringify({ type: 'object', required: ['total'] }));
    const checked = await runCli(['check', results, '--schema', `invoice=${join(dir, 'schema.json')}`, '--json'], { env });
    const lines = parseNdjson(checked.stdout) as { output?: string; error?: { code: string }; checks?: { passed: boolean } }[];
    expect(
      lines.find((line) => line.output === join(results, 'deep.pdf.json')),
      checked.stdout,
    ).toMatchObject({ error: { code: 'result_too_deep' } });
    expect(lines.find((line) => line.output === join(results, 'fine.pdf.json'))).toMatchObject({ checks: { passed: true } });
  });
});
