import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSendTimes } from '../../src/batch/send-log.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { makeWorkspace } from '../helpers/workspace.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';

/** Two split documents (4 and 12 pages, so two jobs whose result reports credits_used), a 2-page PDF and an image. */
const FILES = {
  'scans/receipt.jpg': 'images/receipt.jpg',
  'a/x.pdf': 'pdf/pages-2.pdf',
  'long/four.pdf': 'pdf/pages-4.pdf',
  'long/twelve.pdf': 'pdf/pages-12.pdf',
};
const PAGES = 1 + 2 + 4 + 12;

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function start(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  emulator = await startEmulator({ keys: [KEY], rateLimits: [], ...options });
  return emulator;
}

function requestsSoFar(emu: RunningEmulator): number {
  return Object.values(emu.counters.requestsByEndpoint).reduce((sum, count) => sum + count, 0);
}

interface UsageJson {
  total: { credits: number; requests: number; reused: number; saved_credits: number; documents: number; runs: number };
  rows: { key: string; credits: number; requests: number | null; documents: number; reused: number; saved_credits: number }[];
  mismatches: { file: string; job_id: string; expected: number; reported: number }[];
  charges: { jobs: number; expected: number; reported: number };
  windows: { window: string; limit: number; used: number; remaining: number; frees_at: string | null }[];
}

function today(): string {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}

/** Extract the workspace, then read `usage --json` while counting the requests it sends (none). */
async function extractThenUsage(
  emu: RunningEmulator,
  runs = 1,
  usageArgs: string[] = [],
): Promise<{ usage: UsageJson; extractRequests: number; human: string; gateSlots: number; env: NodeJS.ProcessEnv }> {
  const ws = makeWorkspace(FILES);
  const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emu.url, DOCEXTRACT_API_KEY: KEY, DOCEXTRACT_RATE_LIMIT: '1000/min,100000/mo' });
  for (let run = 0; run < runs; run++) {
    const extract = await runCli(['extract', ws.inputs, '--out', ws.out, '--json'], { env, cwd: ws.dir });
    expect(extract.code, extract.stderr).toBe(0);
  }
  const extractRequests = emu.counters.requestsByEndpoint.documents + emu.counters.requestsByEndpoint.process + emu.counters.requestsByEndpoint.result;
  const before = requestsSoFar(emu);
  const usage = await runCli(['usage', '--json', ...usageArgs], { env });
  const human = await runCli(['usage', ...usageArgs], { env });
  expect(usage.code, usage.stderr).toBe(0);
  expect(human.code).toBe(0);
  // Read from the state folder: not one request, not even health.
  expect(requestsSoFar(emu)).toBe(before);
  return { usage: JSON.parse(usage.stdout) as UsageJson, extractRequests, human: human.stdout, gateSlots: gateSlotsTaken(env), env };
}

/** The slots the request gate took, as its send log in the state folder holds them (a slot it took and left unused counts too). */
function gateSlotsTaken(env: NodeJS.ProcessEnv): number {
  const stateDir = join(String(env.XDG_STATE_HOME), 'docextract');
  const logs = readdirSync(stateDir).filter((name) => /^sends-[0-9a-f]+\.log$/.test(name));
  expect(logs).toHaveLength(1);
  // Each request once: a send the gate moved to when the server counted it has a line replacing the first (issue 52).
  return readSendTimes(join(stateDir, logs[0] as string)).length;
}

describe('docextract usage', () => {
  it('reports the credits of N pages extracted today, the requests sent, and that every charge matched the pages sent', async () => {
    const emu = await start();
    const { usage, extractRequests, human, gateSlots } = await extractThenUsage(emu);

    expect(emu.counters.creditsCharged).toBe(PAGES);
    expect(usage.total).toMatchObject({ credits: PAGES, reused: 0, saved_credits: 0, documents: 4, runs: 1 });
    // Every request of the run but the free warm-up (health) goes through the gate and is counted.
    expect(usage.total.requests).toBe(extractRequests);
    expect(usage.rows).toEqual([{ key: today(), credits: PAGES, requests: extractRequests, documents: 4, reused: 0, saved_credits: 0 }]);
    expect(usage.charges).toEqual({ jobs: 2, expected: 16, reported: 16 });
    expect(usage.mismatches).toEqual([]);
    expect(human).toContain('Charges: 2 jobs checked; the service charged what the pages sent call for every time (16 credits).');
    // The gate's own log: every slot the run took (each request, and a slot it took but left unused) is in both windows.
    expect(gateSlots).toBeGreaterThanOrEqual(extractRequests);
    expect(usage.windows.map(({ window, limit, used, remaining }) => ({ window, limit, used, remaining }))).toEqual([
      { window: '1000/min', limit: 1000, used: gateSlots, remaining: 1000 - gateSlots },
      { window: '100000/mo', limit: 100000, used: gateSlots, remaining: 100000 - gateSlots },
    ]);
    expect(Date.parse(usage.windows[0]?.frees_at ?? '')).toBeGreaterThan(Date.now());
  });

  it('lists every job the service charged differently from the pages sent', async () => {
    // The emulator reports one credit more than it charged on every collected job.
    const emu = await start({ creditsUsedSkew: 1 });
    const { usage, human } = await extractThenUsage(emu);

    expect(usage.total.credits).toBe(PAGES);
    expect(usage.mismatches.map(({ file, expected, reported }) => ({ file, expected, reported })).sort((a, b) => a.expected - b.expected)).toEqual([
      { file: 'in/long/four.pdf', expected: 4, reported: 5 },
      { file: 'in/long/twelve.pdf', expected: 12, reported: 13 },
    ]);
    expect(usage.mismatches.every((mismatch) => /^[\w-]+$/.test(mismatch.job_id))).toBe(true);
    expect(human).toContain('Charges: 2 of 2 jobs charged differently from the pages sent (16 credits expected, 18 reported):');
    expect(human).toMatch(/in\/long\/twelve\.pdf {2}job \S+: expected 12, reported 13/);
  });

  it('counts reused files with the credits they saved, and refuses a grouping or a start it does not know (exit 2)', async () => {
    const emu = await start();
    const { usage } = await extractThenUsage(emu, 2);
    // The second run found every answer on disk: nothing charged, 4 files reused, saving what they cost.
    expect(usage.total).toMatchObject({ credits: PAGES, reused: 4, saved_credits: PAGES, documents: 8, runs: 2 });

    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: emu.url, DOCEXTRACT_API_KEY: KEY });
    expect((await runCli(['usage', '--by', 'fortnight'], { env })).code).toBe(2);
    expect((await runCli(['usage', '--since', 'last tuesday'], { env })).code).toBe(2);
  });

  it('groups by folder, model and command; requests belong to the run, not to a folder or a model', async () => {
    const emu = await start();
    const byFolder = await extractThenUsage(emu, 1, ['--by', 'folder']);
    expect(byFolder.usage.rows.map(({ key, credits, requests }) => ({ folder: key.split('/').slice(-2).join('/'), credits, requests }))).toEqual([
      { folder: 'in/long', credits: 16, requests: null },
      { folder: 'in/a', credits: 2, requests: null },
      { folder: 'in/scans', credits: 1, requests: null },
    ]);
    const byModel = JSON.parse((await runCli(['usage', '--json', '--by', 'model'], { env: byFolder.env })).stdout) as UsageJson;
    expect(byModel.rows.map(({ key, credits, documents }) => ({ key, credits, documents }))).toEqual([{ key: 'invoice', credits: PAGES, documents: 4 }]);
    const byCommand = JSON.parse((await runCli(['usage', '--json', '--by', 'command', '--since', '1h'], { env: byFolder.env })).stdout) as UsageJson;
    expect(byCommand.rows).toEqual([{ key: 'extract', credits: PAGES, requests: byFolder.extractRequests, documents: 4, reused: 0, saved_credits: 0 }]);
  });
});
