/**
 * The same powers through every door (issue 53): one table of cases, each run through the CLI's
 * `extract`, the CLI's `watch`, the client in-process (`new DocExtract(...).extract`) and MCP's
 * `extract`, each door in a workspace and state folder of its own, comparing what each produced:
 * the statuses, the result files (a 151-page PDF in two parts, its one result listing them) and
 * the credits charged; then the same inputs again, each answered from disk at no charge.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocExtract } from '../../src/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator, TEST_KEY } from '../helpers/emulator-run.js';
import { labelledPdf } from '../helpers/make-pdf.js';
import { startMcpInProcess } from '../helpers/mcp-run.js';
import { runCli } from '../helpers/run-cli.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';

let emu: RunningEmulator;
let statementPdf: Buffer;
beforeAll(async () => {
  emu = await startTestEmulator();
  statementPdf = await labelledPdf('Statement', 151);
});
afterAll(() => emu.close());

interface Workspace {
  dir: string;
  inputs: string;
  out: string;
  env: NodeJS.ProcessEnv;
}

/** What a door reports of each file it finished: its name and status (and whether it was answered from disk). */
type Finished = Record<string, { status: string; reused: boolean }>;

const finishedOf = (lines: readonly Record<string, unknown>[]): Finished =>
  Object.fromEntries(lines.map((line) => [basename(String(line.file)), { status: String(line.status), reused: Boolean(line.reused) }]));

/** Every door, as a person or a program meets it: the inputs folder in, each file's outcome out. */
const DOORS: Record<string, (ws: Workspace) => Promise<Finished>> = {
  'CLI extract': async (ws) => {
    const run = await runCli(['--json', 'extract', ws.inputs, '--out', ws.out, '--rate-limit', 'none'], { env: ws.env, cwd: ws.dir });
    expect(run.code, run.stderr).toBe(0);
    return finishedOf(parseNdjson(run.stdout).filter((line) => line.kind !== 'summary'));
  },
  'CLI watch': async (ws) => {
    const stop = new AbortController();
    let stdout = '';
    const lines = (): Record<string, unknown>[] => parseNdjson(stdout).filter((line) => line.file !== undefined);
    const ended = runCli(['--json', 'watch', ws.inputs, '--out', ws.out, '--rate-limit', 'none', '--settle', '100ms'], {
      env: ws.env,
      cwd: ws.dir,
      stop: stop.signal,
      onOutput: (stream, chunk) => {
        if (stream === 'stdout') stdout += chunk;
        if (lines().length === 2) stop.abort();
      },
    });
    const run = await ended;
    expect(run.code, run.stderr).toBe(130);
    return finishedOf(lines());
  },
  'the client in-process': async (ws) => {
    const dx = new DocExtract({ apiKey: TEST_KEY, baseUrl: emu.url, stateDir: ws.env.DOCEXTRACT_STATE_DIR as string, rateLimit: 'none', cwd: ws.dir });
    const run = dx.extract([ws.inputs], { out: ws.out, tuneHeap: false });
    const finished: Finished = {};
    for await (const outcome of run) finished[basename(outcome.file)] = { status: outcome.status, reused: Boolean(outcome.reused) };
    expect((await run.done).counts.complete).toBe(2);
    return finished;
  },
  'MCP extract': async (ws) => {
    const session = await startMcpInProcess({ out: ws.out, env: ws.env, cwd: ws.dir });
    try {
      const answer = await session.client.callTool({ name: 'extract', arguments: { paths: [ws.inputs] } });
      expect(answer.isError, JSON.stringify(answer.structuredContent)).toBeFalsy();
      return finishedOf((answer.structuredContent as { documents: Record<string, unknown>[] }).documents);
    } finally {
      await session.close();
    }
  },
};

interface PartsResult {
  status: string;
  parts: { source_pages: number[]; status: string }[];
}

describe('the same powers through every door', () => {
  it.each(Object.keys(DOORS))(
    '%s: a 151-page PDF in parts and an image, charged once; run again, each answered from disk at no charge',
    { timeout: 120_000 },
    async (door) => {
      const made = makeWorkspace({ 'receipt.jpg': 'images/receipt.jpg' });
      mkdirSync(made.inputs, { recursive: true });
      writeFileSync(join(made.inputs, 'statement.pdf'), statementPdf);
      const ws: Workspace = { ...made, env: emulatorEnv(emu) };
      const run = DOORS[door] as (ws: Workspace) => Promise<Finished>;

      const chargedBefore = emu.counters.creditsCharged;
      expect(await run(ws)).toEqual({ 'statement.pdf': { status: 'complete', reused: false }, 'receipt.jpg': { status: 'complete', reused: false } });
      // 151 pages in two parts and the image's one page: each charged once, whichever door.
      expect(emu.counters.creditsCharged - chargedBefore).toBe(152);
      const statement = JSON.parse(readFileSync(join(ws.out, 'statement.pdf.json'), 'utf8')) as PartsResult;
      expect(statement.status).toBe('complete');
      expect(statement.parts.map((part) => [part.status, part.source_pages.length])).toEqual([
        ['complete', 150],
        ['complete', 1],
      ]);

      const chargedFirst = emu.counters.creditsCharged;
      expect(await run(ws)).toEqual({ 'statement.pdf': { status: 'complete', reused: true }, 'receipt.jpg': { status: 'complete', reused: true } });
      expect(emu.counters.creditsCharged).toBe(chargedFirst);
    },
  );
});
