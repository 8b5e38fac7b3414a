import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { rewritingFetch } from '../helpers/hostile-service.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';

/**
 * Issue 51, item 3: in a shared 1777 `--out`, a result or a review planted
 * by another user is not the user's word. Another user is made by chown,
 * which needs root (CI runs as root); as anyone else these are skipped.
 */
const KEY = 'sk_0123456789abcdef0123456789abcdef';
const MALLORY = 12345;
const asRoot = process.getuid?.() === 0;
if (!asRoot) console.log('planted-results: skipped, chown to another user needs root');

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function extractedOnce(): Promise<{ emu: RunningEmulator; env: NodeJS.ProcessEnv; ws: ReturnType<typeof makeWorkspace>; result: string }> {
  emulator = await startEmulator({ keys: [KEY], rateLimits: [] });
  const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY });
  const ws = makeWorkspace({ 'a.png': 'images/id-card.png' });
  mkdirSync(ws.out);
  chmodSync(ws.out, 0o1777); // a shared inbox's output, as the README's systemd setup has
  expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).not.toBe(2);
  return { emu: emulator, env, ws, result: join(ws.out, 'a.png.json') };
}

function requests(emu: RunningEmulator): number {
  const { documents, process, result } = emu.counters.requestsByEndpoint;
  return documents + process + result;
}

/** Mallory's copy of the result with her own bank number in it, in the user's place. */
function plantForgedResult(path: string): void {
  const forged = JSON.parse(readFileSync(path, 'utf8')) as { data: Record<string, unknown> };
  forged.data = { ...forged.data, iban: 'MALLORY-IBAN' };
  writeFileSync(path, JSON.stringify(forged));
  chownSync(path, MALLORY, MALLORY);
}

/** A review beside the user's own result, made for this very extraction, but written by mallory. */
function plantReview(result: string): string {
  const parsed = JSON.parse(readFileSync(result, 'utf8')) as { source: { sha256: string }; question: { model: string }; completed_at: string };
  const review = `${result}.review.json`;
  const fingerprint = { sha256: parsed.source.sha256, model: parsed.question.model, completed_at: parsed.completed_at };
  writeFileSync(review, JSON.stringify({ result: fingerprint, reviewed_at: parsed.completed_at, approved: true, corrections: { iban: 'MALLORY-IBAN' } }));
  chownSync(review, MALLORY, MALLORY);
  return review;
}

describe.runIf(asRoot)('only the user’s own files speak for the user (issue 51)', () => {
  it('a result another user planted is not reused: the file is refused by name with result_untrusted, and nothing is sent', async () => {
    const { emu, env, ws, result } = await extractedOnce();
    plantForgedResult(result);
    const before = requests(emu);
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env });
    const [line] = parseNdjson(run.stdout);
    expect(line).toMatchObject({ status: 'failed', error: { code: 'result_untrusted' } });
    expect(line?.reused).toBeUndefined();
    expect(JSON.stringify(line)).not.toContain('MALLORY-IBAN');
    expect((line?.error as { message: string }).message).toContain(`${result} is not your own result: it belongs to another user (uid ${MALLORY})`);
    expect(requests(emu)).toBe(before);
  });

  it('a result of the user’s own that others may write is not reused either', async () => {
    const { env, ws, result } = await extractedOnce();
    chmodSync(result, 0o666);
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(parseNdjson(run.stdout)[0]).toMatchObject({ status: 'failed', error: { code: 'result_untrusted', message: expect.stringContaining('mode 0666') } });
  });

  it('a planted result is not exported, and export names it', async () => {
    const { env, ws, result } = await extractedOnce();
    plantForgedResult(result);
    const tables = join(ws.dir, 'tables');
    const run = await runCli(['export', ws.out, '--out', tables], { env });
    expect(run.stderr).toContain(`a.png.json: not exported: it belongs to another user (uid ${MALLORY}) (result_untrusted)`);
    expect(readTables(tables)).not.toContain('MALLORY-IBAN');
  });

  it('check names a planted result with result_untrusted, and neither checks nor rewrites it', async () => {
    const { env, ws, result } = await extractedOnce();
    plantForgedResult(result);
    const planted = readFileSync(result, 'utf8');
    const checked = await runCli(['check', ws.out, '--json'], { env });
    expect(parseNdjson(checked.stdout)).toContainEqual(
      expect.objectContaining({ error: { code: 'result_untrusted', message: `a.png.json: not checked: it belongs to another user (uid ${MALLORY})` } }),
    );
    expect(readFileSync(result, 'utf8')).toBe(planted);
  });

  it('a review planted beside the user’s own result is not exported, reused or checked as theirs, and export names it', async () => {
    const { emu, env, ws, result } = await extractedOnce();
    plantReview(result);
    const tables = join(ws.dir, 'tables');
    const exported = await runCli(['export', ws.out, '--out', tables], { env });
    expect(exported.stderr).toContain(
      `a.png.json.review.json: its corrections are not exported: it belongs to another user (uid ${MALLORY}) (review_untrusted)`,
    );
    expect(readTables(tables)).not.toContain('MALLORY-IBAN');

    const before = requests(emu);
    const reused = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env });
    const [line] = parseNdjson(reused.stdout);
    expect(line).toMatchObject({ status: 'complete', reused: expect.any(String) });
    expect(line?.reviewed).toBeUndefined();
    expect(JSON.stringify(line)).not.toContain('MALLORY-IBAN');
    expect(requests(emu)).toBe(before);

    const checked = await runCli(['check', ws.out, '--json'], { env });
    expect(checked.stdout).not.toContain('MALLORY-IBAN');
  });
});

/** Every table an export wrote, as one text. */
function readTables(folder: string): string {
  return readdirSync(folder)
    .map((name) => readFileSync(join(folder, name), 'utf8'))
    .join('\n');
}

describe('an export is no more readable than its most private source (issue 51)', () => {
  it('0600 results give 0600 tables, in every format', async () => {
    emulator = await startEmulator({ keys: [KEY], rateLimits: [] });
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY });
    const ws = makeWorkspace({ 'a.png': 'images/id-card.png', 'b.pdf': 'pdf/pages-2.pdf' });
    chmodSync(join(ws.inputs, 'a.png'), 0o600); // a payslip kept private: its result is 0600 too
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(statSync(join(ws.out, 'a.png.json')).mode & 0o777).toBe(0o600);
    for (const format of ['csv', 'ndjson', 'xlsx']) {
      const tables = join(ws.dir, `tables-${format}`);
      expect((await runCli(['export', ws.out, '--out', tables, '--format', format], { env })).code).toBe(0);
      for (const name of readdirSync(tables)) expect([format, name, (statSync(join(tables, name)).mode & 0o777).toString(8)]).toEqual([format, name, '600']);
    }
  });
});

describe('a "__proto__" key in the service’s data is kept (issue 51)', () => {
  it('lands in the result file, and in the --json line, as a key like any other', async () => {
    emulator = await startEmulator({ keys: [KEY], rateLimits: [] });
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY });
    const ws = makeWorkspace({ 'a.png': 'images/id-card.png' });
    // JSON.parse makes "__proto__" an own key, as a service's answer would carry it.
    const fetch = rewritingFetch((endpoint, body) =>
      endpoint === 'documents' && body.success === true ? { ...body, data: JSON.parse('{"__proto__":{"iban":"DE89"},"total":2}') as unknown } : body,
    );
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env, fetch });
    expect(run.code).toBe(0);
    const written = JSON.parse(readFileSync(join(ws.out, 'a.png.json'), 'utf8')) as { data: object };
    expect([Object.keys(written.data), (written.data as Record<string, unknown>)['__proto__']]).toEqual([['__proto__', 'total'], { iban: 'DE89' }]);
    expect(run.stdout).toContain('"__proto__":{"iban":"DE89"}');
  });
});
