/**
 * `docextract mcp` as an agent meets it: the built CLI spawned by the
 * official MCP client over stdio, against the emulator.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorEvent, RunningEmulator } from '../../src/emulator/index.js';
import { DOCEXTRACT_BIN, runChildCli } from '../helpers/child-run.js';
import { batchFiles, emulatorEnv, expectEachUploadedOnce, startTestEmulator, totalPages, MIXED_FILES } from '../helpers/emulator-run.js';
import { firstUpload, holdAnswersUntilReleased, waitForClient } from '../helpers/held-answers.js';
import { expectCompleteResult, makeWorkspace } from '../helpers/workspace.js';

const FILES = MIXED_FILES;

let emulator: RunningEmulator | undefined;
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  await emulator?.close();
  emulator = undefined;
});

interface ExtractAnswer {
  summary: string;
  credits: number;
  interrupted: boolean;
  documents: { file: string; status: string; output: string | null; data?: unknown; error?: { code: string }; reused?: string }[];
}

async function connect(emu: RunningEmulator, out: string, extraArgs: string[] = [], processEnv: NodeJS.ProcessEnv = emulatorEnv(emu)): Promise<{ client: Client; stderr: () => string }> {
  const env = Object.fromEntries(Object.entries(processEnv).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const transport = new StdioClientTransport({ command: process.execPath, args: [DOCEXTRACT_BIN, 'mcp', '--out', out, '--rate-limit', 'none', ...extraArgs], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const connected = new Client({ name: 'docextract-test', version: '1.0.0' });
  await connected.connect(transport);
  client = connected;
  return { client: connected, stderr: () => stderr };
}

describe('docextract mcp over stdio', () => {
  it('lists its tools, each with a JSON schema for its input', async () => {
    const emu = (emulator = await startTestEmulator());
    const { client } = await connect(emu, makeWorkspace({}).out);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['extract', 'jobs', 'models']);
    for (const tool of tools) expect(tool.inputSchema.type).toBe('object');
    const extract = tools.find((tool) => tool.name === 'extract');
    expect(extract?.inputSchema.required).toEqual(['paths']);
    expect(Object.keys(extract?.inputSchema.properties ?? {}).sort()).toEqual(['force', 'model', 'out', 'paths']);
    const models = await client.callTool({ name: 'models', arguments: {} });
    expect(JSON.stringify(models.structuredContent)).toContain('invoice');
  });

  it('extracts a folder of mixed files: results on disk, data returned, progress reported, each page charged once', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace(batchFiles(FILES));
    const { client, stderr } = await connect(emu, ws.out);
    const progress: string[] = [];
    const result = await client.callTool({ name: 'extract', arguments: { paths: [ws.inputs] } }, undefined, { onprogress: (step) => progress.push(step.message ?? '') });
    expect(result.isError, stderr()).toBeFalsy();
    const answer = result.structuredContent as unknown as ExtractAnswer;
    expect(answer.documents.map((doc) => doc.status)).toEqual(FILES.map(() => 'complete'));
    expect(answer.documents.map((doc) => typeof doc.data)).toEqual(FILES.map(() => 'object'));
    for (const file of FILES) expectCompleteResult(join(ws.out, `${file.target}.json`), join(ws.inputs, file.target), file.pages);
    expect(progress.filter((message) => message.startsWith('complete '))).toHaveLength(FILES.length);
    expect(progress.some((message) => /chunk \d+ of \d+/.test(message))).toBe(true);
    expect(emu.counters.creditsCharged).toBe(totalPages(FILES));

    // The same call again: everything is answered on disk, nothing is paid.
    const again = await client.callTool({ name: 'extract', arguments: { paths: [ws.inputs] } });
    expect((again.structuredContent as unknown as ExtractAnswer).credits).toBe(0);
    expect(emu.counters.creditsCharged).toBe(totalPages(FILES));
  });

  it('a cancelled extraction drains and keeps what it did; the next call finishes it without paying twice', async () => {
    const emu = (emulator = await startTestEmulator({ latencyMs: { process: 150 } }));
    const ws = makeWorkspace(batchFiles(FILES));
    // 4 requests a second: the batch takes some 4 s, and the cancel lands with most of it left.
    const { client, stderr } = await connect(emu, ws.out, ['--rate-limit', '4/1s']);
    const cancel = new AbortController();
    const reason = new Error('cancelled by the test');
    emu.events.on('event', (event: EmulatorEvent) => {
      if (event.type === 'chunk_processed') cancel.abort(reason);
    });
    // Our own cancel (the SDK's wrapping of our reason), not a closed connection or an error answer. The server
    // sends no answer to a cancelled call (the protocol says so): its own answer about it is the next call's, below.
    await expect(client.callTool({ name: 'extract', arguments: { paths: [ws.inputs] } }, undefined, { signal: cancel.signal })).rejects.toMatchObject({
      code: -32001,
      message: expect.stringContaining(reason.message),
    });

    // The next call waits for the cancelled run to drain, then finishes the rest: some documents
    // were done by the cancelled run (answered from disk now), the others by this one.
    const finished = await client.callTool({ name: 'extract', arguments: { paths: [ws.inputs] } });
    expect(finished.isError, stderr()).toBeFalsy();
    const documents = (finished.structuredContent as unknown as ExtractAnswer).documents;
    expect(documents.map((doc) => doc.status)).toEqual(FILES.map(() => 'complete'));
    // The server's answer: some documents were kept from the cancelled run (answered on disk), the others done now.
    expect(documents.filter((doc) => doc.reused !== undefined).length, JSON.stringify(documents)).toBeGreaterThan(0);
    expect(documents.filter((doc) => doc.reused === undefined).length).toBeGreaterThan(0);
    expect(emu.counters.finalizedJobs).toBe(2);
    expect(emu.counters.creditsCharged).toBe(totalPages(FILES));
    expectEachUploadedOnce(emu, FILES, ws.inputs);
  });

  it('an extraction while a CLI extract holds the state folder rides along on it: each content uploaded once', async () => {
    const held = holdAnswersUntilReleased();
    const emu = (emulator = await startTestEmulator({ holdAnswer: held.holdAnswer }));
    const ws = makeWorkspace(batchFiles(FILES));
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const uploaded = firstUpload(emu);
    const cli = runChildCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none'], env);
    await uploaded; // the CLI holds the folder and hosts
    const { client, stderr } = await connect(emu, join(ws.dir, 'agent-out'), [], env);
    const called = client.callTool({ name: 'extract', arguments: { paths: [ws.inputs] } });
    await waitForClient(stateDir, 'the MCP extraction to join the CLI as a client');
    held.release();
    const [done, result] = await Promise.all([cli, called]);
    expect(done.code, done.stderr).toBe(0);
    expect(result.isError, stderr()).toBeFalsy();
    expect((result.structuredContent as unknown as ExtractAnswer).documents.map((doc) => doc.status)).toEqual(FILES.map(() => 'complete'));
    expectEachUploadedOnce(emu, FILES, ws.inputs);
    expect(emu.counters.creditsCharged).toBe(totalPages(FILES));
  });

  it('an unknown model and a spent budget are tool errors with a code; nothing is sent', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace(batchFiles(FILES.slice(0, 2)));
    const { client } = await connect(emu, ws.out, ['--max-credits', '1']);
    const unknown = await client.callTool({ name: 'extract', arguments: { paths: [ws.inputs], model: 'invoise' } });
    expect(unknown.isError).toBe(true);
    expect(unknown.structuredContent).toMatchObject({ error: { code: 'unknown_model' } });
    expect(emu.counters.requestsByEndpoint.documents).toBe(0);
    const first = await client.callTool({ name: 'extract', arguments: { paths: [join(ws.inputs, 'img/receipt.jpg')] } });
    expect((first.structuredContent as unknown as ExtractAnswer).credits).toBe(1);
    const spent = await client.callTool({ name: 'extract', arguments: { paths: [join(ws.inputs, 'img/id-card.png')] } });
    expect(spent.structuredContent).toMatchObject({ error: { code: 'budget_exhausted' } });
    expect(emu.counters.creditsCharged).toBe(1);
  });
});
