/**
 * Portable results (issue 55): a result names its source relative to its own
 * folder, so a tree of inputs and results moved elsewhere (a real rename of
 * the folder above them) still finds its sources in every reader.
 */
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { readResultFile, type ResultDocument } from '../../src/batch/result-file.js';
import { sourceFileOf } from '../../src/review/review-model.js';
import { emulatorEnv, startTestEmulator } from '../helpers/emulator-run.js';
import { startMcpInProcess, type McpSession } from '../helpers/mcp-run.js';
import { runCli } from '../helpers/run-cli.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';

let emulator: RunningEmulator | undefined;
let session: McpSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
  await emulator?.close();
  emulator = undefined;
});

const FILES = { 'a.pdf': 'pdf/pages-2.pdf', 'scans/b.png': 'images/id-card.png' };

function sent(emu: RunningEmulator): number {
  const { documents, process, result } = emu.counters.requestsByEndpoint;
  return documents + process + result;
}

function recordedSource(resultFile: string): string {
  return (JSON.parse(readFileSync(resultFile, 'utf8')) as { source: { path: string } }).source.path;
}

/** Inputs (`in/`) and results (`out/`) extracted, then the folder holding both renamed. */
async function extractedThenMoved(): Promise<{ emu: RunningEmulator; env: NodeJS.ProcessEnv; before: { dir: string; out: string }; dir: string }> {
  const emu = (emulator = await startTestEmulator());
  const env = emulatorEnv(emu);
  const ws = makeWorkspace(FILES);
  const first = await runCli(['extract', ws.inputs, '--out', ws.out, '--json'], { env });
  expect(first.code, first.stderr + first.stdout).toBe(0);
  const dir = `${ws.dir}-moved`;
  renameSync(ws.dir, dir);
  return { emu, env, before: { dir: ws.dir, out: ws.out }, dir };
}

describe('a result names its source relative to its own folder', () => {
  it('is written so: ../in/a.pdf from out/, ../../in/scans/b.png from out/scans/', async () => {
    const { dir } = await extractedThenMoved();
    expect(recordedSource(join(dir, 'out/a.pdf.json'))).toBe(join('..', 'in', 'a.pdf'));
    expect(recordedSource(join(dir, 'out/scans/b.png.json'))).toBe(join('..', '..', 'in', 'scans', 'b.png'));
  });

  it('moved with its inputs, it is reused: a second extract sends nothing, and the result still names the moved source', async () => {
    const { emu, env, dir } = await extractedThenMoved();
    const before = sent(emu);
    const again = await runCli(['extract', join(dir, 'in'), '--out', join(dir, 'out'), '--json'], { env });
    expect(again.code).toBe(0);
    for (const line of parseNdjson(again.stdout)) expect(line).toMatchObject({ status: 'complete', reused: expect.any(String) });
    expect(sent(emu)).toBe(before);
    expect((await readResultFile(join(dir, 'out/a.pdf.json')))?.source?.path).toBe(join(dir, 'in/a.pdf'));
  });

  it('check names the moved source', async () => {
    const { env, dir } = await extractedThenMoved();
    const run = await runCli(['check', join(dir, 'out'), '--json'], { env });
    const files = parseNdjson(run.stdout)
      .map((line) => line.file)
      .filter((file) => file !== undefined);
    expect(files.sort()).toEqual([join(dir, 'in/a.pdf'), join(dir, 'in/scans/b.png')]);
  });

  it('export writes the same tables before and after the move (sources relative to the folder exported)', async () => {
    const emu = (emulator = await startTestEmulator());
    const env = emulatorEnv(emu);
    const ws = makeWorkspace(FILES);
    const first = await runCli(['extract', ws.inputs, '--out', ws.out, '--json'], { env });
    expect(first.code, first.stderr + first.stdout).toBe(0);
    expect((await runCli(['export', ws.out, '--out', join(ws.dir, 'tables-before')], { env })).code).toBe(0);
    const dir = `${ws.dir}-moved`;
    renameSync(ws.dir, dir);
    expect((await runCli(['export', join(dir, 'out'), '--out', join(dir, 'tables-after')], { env })).code).toBe(0);
    const tables = (folder: string): Record<string, string> =>
      Object.fromEntries(readdirSync(join(dir, folder)).map((name) => [name, readFileSync(join(dir, folder, name), 'utf8')]));
    expect(Object.keys(tables('tables-after')).length).toBeGreaterThan(0);
    expect(tables('tables-after')).toEqual(tables('tables-before'));
    expect(Object.values(tables('tables-after')).join('')).toContain(join('..', 'in', 'a.pdf'));
  });

  it("review's model finds the moved PDF", async () => {
    const { dir } = await extractedThenMoved();
    const result = (await readResultFile(join(dir, 'out/a.pdf.json'))) as ResultDocument;
    // From another folder altogether: the path is taken from the result's folder, not from where review runs.
    expect(await sourceFileOf(result, '/')).toBe(join(dir, 'in/a.pdf'));
  });

  it('the MCP result tool finds the result of a moved source', async () => {
    const { env, dir } = await extractedThenMoved();
    session = await startMcpInProcess({ out: join(dir, 'out'), env });
    const read = await session.client.callTool({ name: 'result', arguments: { path: join(dir, 'in/a.pdf') } });
    expect(read.isError, JSON.stringify(read.structuredContent)).toBeFalsy();
    expect(read.structuredContent).toMatchObject({ output: join(dir, 'out/a.pdf.json'), source: join(dir, 'in/a.pdf'), status: 'complete' });
  });

  it('a result written before (its source named by an absolute path) is read as it was', async () => {
    const { env, dir } = await extractedThenMoved();
    const path = join(dir, 'out/a.pdf.json');
    const old = JSON.parse(readFileSync(path, 'utf8')) as ResultDocument;
    writeFileSync(path, JSON.stringify({ ...old, source: { ...old.source, path: join(dir, 'in/a.pdf') } }, null, 2), { mode: 0o600 });
    expect((await readResultFile(path))?.source?.path).toBe(join(dir, 'in/a.pdf'));
    const run = await runCli(['check', join(dir, 'out'), '--json'], { env });
    expect(parseNdjson(run.stdout).map((line) => line.file)).toContain(join(dir, 'in/a.pdf'));
  });
});
