/**
 * `docextract mcp` as an agent meets it: the official MCP client against the
 * emulator. Most tests run the real command in this process (through main, its
 * flags parsed as for the binary, served on the SDK's in-memory transport pair),
 * which saves a process start (~1.5 CPU-s) per server; those over stdio spawn
 * the built CLI, so that the shipped binary path stays proven.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorEvent, RunningEmulator } from '../../src/emulator/index.js';
import type { JournalRecord } from '../../src/batch/journal-records.js';
import { accountId } from '../../src/config/account-id.js';
import { writeLastRunReport } from '../../src/store/last-run-report.js';
import { DOCEXTRACT_BIN, runChildCli } from '../helpers/child-run.js';
import { batchFiles, emulatorEnv, expectEachUploadedOnce, startTestEmulator, totalPages, MIXED_FILES, TEST_KEY } from '../helpers/emulator-run.js';
import { firstUpload, holdAnswersUntilReleased, waitForClient } from '../helpers/held-answers.js';
import { startMcpChild, startMcpInProcess, type McpSession } from '../helpers/mcp-run.js';
import { runningCommands, waitFor } from '../helpers/one-client.js';
import { expectCompleteResult, makeWorkspace, sha256Of } from '../helpers/workspace.js';

const FILES = MIXED_FILES;

let emulator: RunningEmulator | undefined;
let session: McpSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
  await emulator?.close();
  emulator = undefined;
});

interface ExtractAnswer {
  summary: string;
  credits: number;
  interrupted: boolean;
  data_budget_chars: number;
  data_left_out?: { documents: number; how: string };
  not_listed?: { documents: number };
  error?: { code: string; message: string };
  documents: {
    file: string;
    status: string;
    output: string | null;
    data?: unknown;
    data_left_out?: true;
    error?: { code: string };
    reused?: string;
    checks?: unknown;
  }[];
}

interface ConnectOptions {
  /** The server's working folder (allowed by default, with --out). @default the workspace of `out` */
  cwd?: string;
  /** The roots this client declares (it then answers roots/list with them); none: the client has no roots capability. */
  roots?: () => string[];
}

type Connected = Pick<McpSession, 'client' | 'stderr' | 'received'>;

/** `docextract mcp` run in this process with the SDK's client, in the folder above `out` (so a workspace is allowed by default). */
async function connect(
  emu: RunningEmulator,
  out: string,
  extraArgs: string[] = [],
  env: NodeJS.ProcessEnv = emulatorEnv(emu),
  options: ConnectOptions = {},
): Promise<Connected> {
  session = await startMcpInProcess({ out, args: extraArgs, env, ...options });
  return session;
}

/** The same, the built CLI spawned by the SDK's client over stdio. */
async function connectOverStdio(emu: RunningEmulator, out: string): Promise<Connected> {
  session = await startMcpChild({ out, env: emulatorEnv(emu) });
  return session;
}

describe('docextract mcp over stdio (the built CLI, spawned)', () => {
  // One server spawned for both (a process start is ~1.5 CPU-seconds): what it lists, then what it extracts.
  it('lists its tools, each with a JSON schema for its input and one for its output; extracts a folder of mixed files: results on disk, data returned, progress reported, each page charged once', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace(batchFiles(FILES));
    const { client, stderr, received } = await connectOverStdio(emu, ws.out);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['extract', 'jobs', 'models', 'result']);
    for (const tool of tools) expect(tool.inputSchema.type).toBe('object');
    // The README says every tool describes its output; an agent's client checks each answer against it.
    expect(tools.filter((tool) => tool.outputSchema?.type !== 'object').map((tool) => tool.name)).toEqual([]);
    expect(Object.keys(tools.find((tool) => tool.name === 'models')?.outputSchema?.properties ?? {}).sort()).toEqual(['error', 'models']);
    expect(Object.keys(tools.find((tool) => tool.name === 'jobs')?.outputSchema?.properties ?? {}).sort()).toEqual([
      'error',
      'failed_files',
      'jobs',
      'unanswered_uploads',
    ]);
    const extract = tools.find((tool) => tool.name === 'extract');
    expect(extract?.inputSchema.required).toEqual(['paths']);
    expect(Object.keys(extract?.inputSchema.properties ?? {}).sort()).toEqual(['force', 'max_credits', 'model', 'out', 'pages', 'paths', 'schemas']);
    expect(extract?.outputSchema?.type).toBe('object');
    // The SDK's client validates structured content against the tool's outputSchema (callTool throws on a mismatch).
    const models = await client.callTool({ name: 'models', arguments: {} });
    expect(models.isError).toBeFalsy();
    expect(JSON.stringify(models.structuredContent)).toContain('invoice');

    const result = await client.callTool({ name: 'extract', arguments: { paths: [ws.inputs] } }, undefined, { onprogress: () => undefined });
    expect(result.isError, stderr()).toBeFalsy();
    // What the server sent, read off the wire: over stdio the last steps may share a chunk with the answer,
    // and the SDK's onprogress then drops them (see connectClient in mcp-run.ts); a loaded machine saw 3 of 5.
    const progress = received().flatMap((message) =>
      'method' in message && message.method === 'notifications/progress' ? [(message.params as unknown as Progress).message ?? ''] : [],
    );
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

  it('ends with exit 0 when its stdin ends, and on SIGTERM', async () => {
    const emu = (emulator = await startTestEmulator());
    const env = emulatorEnv(emu);
    const out = makeWorkspace({}).out;
    const args = [DOCEXTRACT_BIN, 'mcp', '--out', out, '--rate-limit', 'none'];
    // Its stdin is /dev/null: read to its end at once.
    const stdinEnded = runChildCli(args.slice(1), env);
    // Its stdin stays open (a pipe nobody writes to): only the signal ends it, once it says it serves.
    const held = spawn(process.execPath, args, { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let heldStderr = '';
    held.stderr.setEncoding('utf8').on('data', (chunk: string) => (heldStderr += chunk));
    const heldEnded = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      held.once('close', (code, signal) => resolve({ code, signal })),
    );
    try {
      await waitFor(() => heldStderr.includes('serving on stdin/stdout') || held.exitCode !== null, 'the server to say it serves');
      held.kill('SIGTERM');
      expect(await heldEnded, heldStderr).toEqual({ code: 0, signal: null });
    } finally {
      if (held.exitCode === null && held.signalCode === null) held.kill('SIGKILL'); // a failed wait leaves no server behind
    }
    const ended = await stdinEnded;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stderr).toContain('docextract mcp: serving on stdin/stdout');
  });
});

describe('docextract mcp in this process (the same command on an in-memory transport)', () => {
  const signalListeners = (): number[] => (['SIGINT', 'SIGTERM'] as const).map((signal) => process.listenerCount(signal));

  it('the end of its stdin ends it with exit 0, and it leaves the SIGINT and SIGTERM of the process it runs in alone', async () => {
    const emu = (emulator = await startTestEmulator());
    const before = signalListeners();
    const mcp = await startMcpInProcess({ out: makeWorkspace({}).out, env: emulatorEnv(emu) });
    session = mcp;
    expect((await mcp.client.listTools()).tools).toHaveLength(4);
    expect(signalListeners()).toEqual(before);
    mcp.stdin.end();
    const ended = await mcp.ended;
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.stderr).toContain('docextract mcp: serving on the transport its caller gave');
    expect(signalListeners()).toEqual(before);
  });

  it('the stop signal its caller injects ends it with exit 0, and so does its client closing', async () => {
    const emu = (emulator = await startTestEmulator());
    const env = emulatorEnv(emu);
    const stopped = await startMcpInProcess({ out: makeWorkspace({}).out, env });
    session = stopped;
    expect((await stopped.client.listTools()).tools).toHaveLength(4);
    stopped.stop.abort();
    expect((await stopped.ended).code).toBe(0);
    const closed = await startMcpInProcess({ out: makeWorkspace({}).out, env });
    session = closed;
    await closed.client.close();
    expect((await closed.ended).code).toBe(0);
  });

  it('a cancelled extraction drains and keeps what it did; the next call finishes it without paying twice', async () => {
    const emu = (emulator = await startTestEmulator({ latencyMs: { process: 150 } }));
    const ws = makeWorkspace(batchFiles(FILES));
    // 4 requests a second: the batch takes some 4 s, and the cancel lands with most of it left.
    const { client, stderr } = await connect(emu, ws.out, ['--rate-limit', '4/1s']);
    const cancel = new AbortController();
    const reason = new Error('cancelled by the test');
    // The cancel lands once a first document is done for good (its job finalized: its result is on disk),
    // and the other split job still has work: a positive signal, not how far a busy machine got by then.
    emu.events.on('event', (event: EmulatorEvent) => {
      if (event.type === 'finalize') cancel.abort(reason);
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

  it('an extraction cancelled while it rides along: the host drops its documents that have not started (nothing of them is sent), finishes its own, and the next call extracts them, each uploaded once', async () => {
    // The host sends one request at a time and the service holds its answers: nothing of the agent's can
    // have been sent when the cancel lands.
    const held = holdAnswersUntilReleased();
    const emu = (emulator = await startTestEmulator({ holdAnswer: held.holdAnswer }));
    const ws = makeWorkspace({ 'h/twelve.pdf': 'pdf/pages-12.pdf', 'mine/x.png': 'images/id-card.png', 'mine/seven.pdf': 'pdf/pages-7.pdf' });
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const uploaded = firstUpload(emu);
    const cli = runChildCli(['extract', join(ws.inputs, 'h'), '--out', ws.out, '--json', '--rate-limit', 'none', '--concurrency', '1'], env);
    await uploaded;
    const { client, stderr } = await connect(emu, join(ws.dir, 'agent-out'), [], env);
    const cancel = new AbortController();
    const reason = new Error('cancelled by the test');
    const called = client.callTool({ name: 'extract', arguments: { paths: [join(ws.inputs, 'mine')] } }, undefined, { signal: cancel.signal });
    await waitForClient(stateDir, 'the MCP extraction to join the CLI as a client');
    cancel.abort(reason);
    await expect(called).rejects.toMatchObject({ code: -32001, message: expect.stringContaining(reason.message) });
    // The host's answer to the cancel: every document of the agent's had its outcome (dropped), and the agent's run left.
    await waitFor(() => !runningCommands(stateDir).some((command) => command.role === 'client'), 'the host to drop the cancelled documents');
    held.release();
    const done = await cli;
    expect(done.code, done.stderr).toBe(0);
    const mine = ['mine/x.png', 'mine/seven.pdf'].map((name) => sha256Of(join(ws.inputs, name)));
    for (const sha of mine) expect(emu.counters.uploadsBySha256[sha]).toBeUndefined();

    const again = await client.callTool({ name: 'extract', arguments: { paths: [join(ws.inputs, 'mine')] } });
    expect(again.isError, stderr()).toBeFalsy();
    expect((again.structuredContent as unknown as ExtractAnswer).documents.map((doc) => doc.status)).toEqual(['complete', 'complete']);
    for (const sha of mine) expect(emu.counters.uploadsBySha256[sha]).toBe(1);
    expect(emu.counters.creditsCharged).toBe(12 + 1 + 7);
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

const answerOf = (result: object): ExtractAnswer => (result as { structuredContent?: unknown }).structuredContent as ExtractAnswer;
const textOf = (result: object): string =>
  (((result as { content?: unknown }).content as { type: string; text?: string }[] | undefined) ?? []).map((part) => part.text ?? '').join('');

describe('docextract mcp as an agent meets it (issue 29)', () => {
  it('a path that does not exist is an error the agent sees: isError, with the code in the structured content and the text', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace(batchFiles(FILES.slice(0, 1)));
    const { client } = await connect(emu, ws.out);
    const result = await client.callTool({ name: 'extract', arguments: { paths: [join(ws.inputs, 'no-such-file.pdf')] } });
    expect(result.isError).toBe(true);
    expect(answerOf(result).error?.code).toBe('file_not_found');
    expect(answerOf(result).documents.map((doc) => [doc.status, doc.error?.code])).toEqual([['failed', 'file_not_found']]);
    expect(textOf(result)).toContain('file_not_found');
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);

    // One document done among failed ones: reported per document, and not an error.
    const mixed = await client.callTool({ name: 'extract', arguments: { paths: [join(ws.inputs, 'no-such-file.pdf'), ws.inputs] } });
    expect(mixed.isError).toBeFalsy();
    expect(answerOf(mixed).documents.map((doc) => doc.status)).toEqual(['failed', 'complete']);
  });

  it('progress carries a total (the documents) and only grows; a 9-page PDF reports chunk 1, 2 and 3 of 3', async () => {
    const emu = (emulator = await startTestEmulator());
    const files = [...FILES.slice(0, 2), { target: 'long/nine.pdf', source: 'pdf/linearized-object-streams-9.pdf', pages: 9 }];
    const ws = makeWorkspace(batchFiles(files));
    const { client, stderr, received } = await connect(emu, ws.out);
    const result = await client.callTool({ name: 'extract', arguments: { paths: [ws.inputs] } }, undefined, { onprogress: () => undefined });
    expect(result.isError, stderr()).toBeFalsy();
    // What the server sent, read off the wire (see connectClient in mcp-run.ts).
    const steps = received().flatMap((message) =>
      'method' in message && message.method === 'notifications/progress' ? [message.params as unknown as Progress] : [],
    );
    expect(steps.length).toBeGreaterThan(files.length);
    expect(steps.every((step) => step.total === files.length)).toBe(true);
    for (let i = 1; i < steps.length; i++) expect(steps[i]?.progress, JSON.stringify(steps)).toBeGreaterThan(steps[i - 1]?.progress ?? Infinity);
    expect(steps.at(-1)?.progress).toBe(files.length);
    const chunks = steps.map((step) => step.message ?? '').filter((message) => message.includes('nine.pdf: chunk'));
    expect(chunks.map((message) => message.replace(/^.*nine\.pdf: /, ''))).toEqual(['chunk 1 of 3', 'chunk 2 of 3', 'chunk 3 of 3']);
  });

  it('reads one document’s result through the result tool, by its result file or by its source', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace(batchFiles(FILES.slice(0, 3)));
    const { client } = await connect(emu, ws.out);
    const extracted = answerOf(await client.callTool({ name: 'extract', arguments: { paths: [ws.inputs] } }));
    const receipt = extracted.documents.find((doc) => doc.file.endsWith('receipt.jpg'));
    const byOutput = await client.callTool({ name: 'result', arguments: { path: receipt?.output } });
    expect(byOutput.isError).toBeFalsy();
    expect(byOutput.structuredContent).toMatchObject({ output: receipt?.output, source: join(ws.inputs, 'img/receipt.jpg'), status: 'complete' });
    expect((byOutput.structuredContent as { data?: unknown }).data).toEqual(receipt?.data);
    const bySource = await client.callTool({ name: 'result', arguments: { path: join(ws.inputs, 'img/receipt.jpg') } });
    expect(bySource.structuredContent).toMatchObject({ output: receipt?.output, status: 'complete' });
    expect(JSON.parse(textOf(bySource))).toEqual(bySource.structuredContent);
    const none = await client.callTool({ name: 'result', arguments: { path: join(ws.inputs, 'nothing.pdf') } });
    expect(none.isError).toBe(true);
    expect(none.structuredContent).toMatchObject({ error: { code: 'result_not_found' } });
  });

  it('a folder bigger than the data budget: every document listed, data up to the budget, the rest named and readable one by one', async () => {
    const emu = (emulator = await startTestEmulator());
    const files = [3, 4, 7, 12, 30, 60].map((pages, index) => ({ target: `f${index}.pdf`, source: `pdf/pages-${pages}.pdf`, pages }));
    const ws = makeWorkspace(batchFiles(files));
    const { client, stderr } = await connect(emu, ws.out);
    const result = await client.callTool({ name: 'extract', arguments: { paths: [ws.inputs] } });
    expect(result.isError, stderr()).toBeFalsy();
    const answer = answerOf(result);
    expect(answer.documents).toHaveLength(files.length);
    expect(answer.documents.every((doc) => doc.status === 'complete' && doc.output !== null)).toBe(true);
    const withData = answer.documents.filter((doc) => doc.data !== undefined);
    const leftOut = answer.documents.filter((doc) => doc.data_left_out === true);
    expect(leftOut.length).toBeGreaterThan(0);
    expect(withData.length + leftOut.length).toBe(files.length);
    expect(JSON.stringify(withData.map((doc) => doc.data)).length).toBeLessThanOrEqual(answer.data_budget_chars + withData.length + 1);
    expect(answer.data_left_out?.documents).toBe(leftOut.length);
    expect(answer.not_listed).toBeUndefined();
    expect(answer.summary).toContain('left out');
    // Each left-out document's data through the result tool, whole or in slices.
    const output = leftOut[0]?.output as string;
    let text = '';
    let offset: number | null = 0;
    while (offset !== null) {
      const read = (await client.callTool({ name: 'result', arguments: { path: output, offset } })).structuredContent as {
        data?: unknown;
        data_json?: string;
        next_offset?: number | null;
      };
      if (read.data !== undefined) text = JSON.stringify(read.data);
      else text += read.data_json ?? '';
      offset = read.data === undefined ? (read.next_offset ?? null) : null;
    }
    expect(JSON.parse(text)).toEqual((JSON.parse(readFileSync(output, 'utf8')) as { data: unknown }).data);
  });

  it('pages, model rules and a budget for one call', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace(batchFiles(FILES));
    const { client, stderr } = await connect(emu, ws.out);
    const first = await client.callTool({
      name: 'extract',
      arguments: { paths: [join(ws.inputs, 'long')], pages: '1', model: ['**/seven.pdf=payslip', 'invoice'] },
    });
    expect(first.isError, stderr()).toBeFalsy();
    // In name order: the answer lists documents as they finish, which a busy machine may swap.
    const documents = [...answerOf(first).documents].sort((a, b) => a.file.localeCompare(b.file));
    expect(documents.map((doc) => [doc.file.split('/').pop(), doc.status])).toEqual([
      ['seven.pdf', 'complete'],
      ['twelve.pdf', 'complete'],
    ]);
    expect(answerOf(first).credits).toBe(2);
    const results = documents.map((doc) => JSON.parse(readFileSync(doc.output as string, 'utf8')) as { question: { model: string }; source_pages: number[] });
    expect(results.map((result) => [result.question.model, result.source_pages])).toEqual([
      ['payslip', [1]],
      ['invoice', [1]],
    ]);
    const budget = await client.callTool({ name: 'extract', arguments: { paths: [join(ws.inputs, 'img')], max_credits: 1 } });
    expect(
      answerOf(budget)
        .documents.map((doc) => doc.status)
        .sort(),
    ).toEqual(['complete', 'skipped']);
    expect(emu.counters.creditsCharged).toBe(3);
  });

  it('a verdict only from this server’s schemas: a result reused from a CLI run with --schema carries none', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace(batchFiles(FILES.slice(0, 1)));
    const schema = join(ws.dir, 'strict.schema.json');
    writeFileSync(schema, JSON.stringify({ type: 'object', required: ['no_such_field'] }));
    const env = emulatorEnv(emu);
    const cli = await runChildCli(['extract', ws.inputs, '--out', ws.out, '--schema', `invoice=${schema}`, '--rate-limit', 'none', '--json'], env);
    expect(cli.stdout).toContain('"checks"');
    const { client } = await connect(emu, ws.out, [], env);
    const result = await client.callTool({ name: 'extract', arguments: { paths: [ws.inputs] } });
    const [doc] = answerOf(result).documents;
    expect(doc?.reused).toBeDefined();
    expect(doc?.checks).toBeUndefined();
    const read = await client.callTool({ name: 'result', arguments: { path: doc?.output } });
    expect((read.structuredContent as { checks?: unknown }).checks).toBeUndefined();
    // A schema given in the call gives its verdict, on the reused result too.
    const checked = await client.callTool({ name: 'extract', arguments: { paths: [ws.inputs], schemas: `invoice=${schema}` } });
    expect(answerOf(checked).documents[0]?.checks).toMatchObject({ schema, passed: false });
    const badSchema = await client.callTool({ name: 'extract', arguments: { paths: [ws.inputs], schemas: 'invoice=missing.json' } });
    expect(badSchema.structuredContent).toMatchObject({ error: { code: 'invalid_schema' } });
  });
});

describe('docextract mcp only inside the roots (issue 29)', () => {
  /** Two workspaces: the one the client declares, and one beside it that it does not. */
  function twoFolders(): { inside: ReturnType<typeof makeWorkspace>; outside: ReturnType<typeof makeWorkspace> } {
    return { inside: makeWorkspace(batchFiles(FILES.slice(0, 1))), outside: makeWorkspace(batchFiles(FILES.slice(1, 3))) };
  }
  const uploadsOf = (emu: RunningEmulator, ws: { inputs: string }, files: readonly { target: string }[]): (number | undefined)[] =>
    files.map((file) => emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, file.target))]);

  it('a folder outside the declared roots is refused with path_not_allowed, and nothing of it is uploaded', async () => {
    const emu = (emulator = await startTestEmulator());
    const { inside, outside } = twoFolders();
    const { client } = await connect(emu, inside.out, [], emulatorEnv(emu), { cwd: outside.dir, roots: () => [inside.dir] });
    const refused = await client.callTool({ name: 'extract', arguments: { paths: [outside.inputs] } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error: { code: 'path_not_allowed' } });
    expect(textOf(refused)).toContain('path_not_allowed');
    // A relative path is shown with the absolute path it was resolved to (against the server's working folder).
    const relativePath = relative(outside.dir, outside.inputs);
    const relativeRefused = await client.callTool({ name: 'extract', arguments: { paths: [relativePath] } });
    expect(textOf(relativeRefused)).toContain(`${relativePath} (${outside.inputs})`);
    const glob = await client.callTool({ name: 'extract', arguments: { paths: [join(outside.inputs, '**/*.png')] } });
    expect(glob.structuredContent).toMatchObject({ error: { code: 'path_not_allowed' } });
    // An out folder outside the roots is refused too, before anything is read.
    const badOut = await client.callTool({ name: 'extract', arguments: { paths: [inside.inputs], out: join(outside.dir, 'stolen') } });
    expect(badOut.structuredContent).toMatchObject({ error: { code: 'path_not_allowed' } });
    expect(existsSync(join(outside.dir, 'stolen'))).toBe(false);
    expect(emu.counters.requestsByEndpoint.documents).toBe(0);
    expect(uploadsOf(emu, outside, FILES.slice(1, 3))).toEqual([undefined, undefined]);
    // Inside the roots (the server's working folder is not), it works.
    const allowed = await client.callTool({ name: 'extract', arguments: { paths: [inside.inputs] } });
    expect(allowed.isError).toBeFalsy();
    expect(emu.counters.requestsByEndpoint.documents).toBe(1);
  });

  it('a symbolic link out of a root is refused: named, or found inside a folder', async () => {
    const emu = (emulator = await startTestEmulator());
    const { inside, outside } = twoFolders();
    symlinkSync(outside.inputs, join(inside.dir, 'escape'));
    mkdirSync(join(inside.inputs, 'links'));
    symlinkSync(join(outside.inputs, FILES[1]?.target as string), join(inside.inputs, 'links', 'id-card.png'));
    const { client } = await connect(emu, inside.out, [], emulatorEnv(emu), { roots: () => [inside.dir] });
    const named = await client.callTool({ name: 'extract', arguments: { paths: [join(inside.dir, 'escape')] } });
    expect(named.structuredContent).toMatchObject({ error: { code: 'path_not_allowed' } });
    const folder = await client.callTool({ name: 'extract', arguments: { paths: [inside.inputs] } });
    expect(answerOf(folder).documents.map((doc) => [doc.file.split('/').pop(), doc.status, doc.error?.code])).toEqual([
      ['id-card.png', 'failed', 'path_not_allowed'],
      ['receipt.jpg', 'complete', undefined],
    ]);
    expect(uploadsOf(emu, outside, FILES.slice(1, 3))).toEqual([undefined, undefined]);
    expect(emu.counters.requestsByEndpoint.documents).toBe(1);
  });

  it('honours roots/list_changed: a folder added to the roots may be extracted from then on', async () => {
    const emu = (emulator = await startTestEmulator());
    const { inside, outside } = twoFolders();
    let roots = [inside.dir];
    const { client } = await connect(emu, inside.out, [], emulatorEnv(emu), { roots: () => roots });
    const before = await client.callTool({ name: 'extract', arguments: { paths: [outside.inputs] } });
    expect(before.structuredContent).toMatchObject({ error: { code: 'path_not_allowed' } });
    roots = [inside.dir, outside.dir];
    await client.sendRootsListChanged();
    const after = await client.callTool({ name: 'extract', arguments: { paths: [outside.inputs] } });
    expect(after.isError).toBeFalsy();
    expect(answerOf(after).documents.map((doc) => doc.status)).toEqual(['complete', 'complete']);
    roots = [inside.dir];
    await client.sendRootsListChanged();
    const removed = await client.callTool({ name: 'extract', arguments: { paths: [outside.inputs] } });
    expect(removed.structuredContent).toMatchObject({ error: { code: 'path_not_allowed' } });
  });

  it('without roots from the client, the folders named with --allow (default: the working folder and --out)', async () => {
    const emu = (emulator = await startTestEmulator());
    const { inside, outside } = twoFolders();
    const { client } = await connect(emu, inside.out, ['--allow', outside.inputs], emulatorEnv(emu));
    const own = await client.callTool({ name: 'extract', arguments: { paths: [inside.inputs] } });
    expect(own.structuredContent).toMatchObject({ error: { code: 'path_not_allowed' } });
    const allowed = await client.callTool({ name: 'extract', arguments: { paths: [outside.inputs] } });
    expect(allowed.isError).toBeFalsy();
  });

  /** A declared root with a PDF of its own, and PDFs beside it and below its parent that it does not declare. */
  function rootWithNeighbours(): { root: string; parent: string; out: string } {
    const ws = makeWorkspace({
      'root/mine/one.pdf': 'pdf/pages-1.pdf',
      'secret-beside.pdf': 'pdf/pages-1.pdf',
      'elsewhere/secret-below.pdf': 'pdf/pages-1.pdf',
    });
    const root = join(ws.inputs, 'root');
    return { root, parent: ws.inputs, out: join(root, 'out') };
  }

  it('a glob that could leave the roots (braces with .., a .. segment, a brace holding a path, an extglob) is refused before any walk: no name from outside is answered', async () => {
    const emu = (emulator = await startTestEmulator());
    const { root, parent, out } = rootWithNeighbours();
    const { client } = await connect(emu, out, [], emulatorEnv(emu), { cwd: root, roots: () => [root] });
    const patterns = [
      '{x,..}/*.pdf',
      '{.,..}/**',
      '{..,x}/elsewhere/*.pdf',
      '.{.,}/elsewhere/*.pdf',
      `{${parent}/elsewhere,mine}/*.pdf`,
      'mine/../../*.pdf',
      '*/../../elsewhere/*.pdf',
      '@(..)/elsewhere/*.pdf',
      '\\.\\./*.pdf',
      join(root, '{x,..}/*.pdf'),
    ];
    for (const pattern of patterns) {
      const refused = await client.callTool({ name: 'extract', arguments: { paths: ['mine/one.pdf', pattern] } });
      expect(refused.isError, pattern).toBe(true);
      expect(refused.structuredContent, pattern).toMatchObject({ error: { code: 'path_not_allowed' } });
      expect(textOf(refused), pattern).toContain('path_not_allowed');
      expect(textOf(refused), pattern).not.toContain('secret');
    }
    expect(emu.counters.requestsByEndpoint.documents).toBe(0);
    // A glob that stays inside is searched as before.
    const allowed = await client.callTool({ name: 'extract', arguments: { paths: ['{mine,other}/*.{pdf,png}'] } });
    expect(allowed.isError).toBeFalsy();
    expect(answerOf(allowed).documents.map((doc) => [doc.file.split('/').pop(), doc.status])).toEqual([['one.pdf', 'complete']]);
    expect(textOf(allowed)).not.toContain('secret');
  });

  it('the jobs tool lists only jobs, uploads and failed files whose source lies inside the roots', async () => {
    const emu = (emulator = await startTestEmulator());
    const { root, parent, out } = rootWithNeighbours();
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const account = accountId(emu.url, TEST_KEY);
    const now = Date.now();
    const mine = join(root, 'mine/one.pdf');
    const theirs = join(parent, 'secret-beside.pdf');
    const job = (path: string, parentJobId: string): JournalRecord[] => [
      { type: 'upload-intent', account, at: now, intentId: `i-${parentJobId}`, sha256: parentJobId, path, pages: 6 },
      {
        type: 'manifest',
        account,
        at: now,
        intentId: `i-${parentJobId}`,
        sha256: parentJobId,
        path,
        output: `${path}.json`,
        parentJobId,
        chunks: [{ jobId: `${parentJobId}_c1`, pages: '1-6' }],
        pages: 6,
        expiresAt: now + 3_600_000,
        model: null,
      },
    ];
    const upload = (path: string, intentId: string): JournalRecord => ({
      type: 'upload-intent',
      account,
      at: now,
      intentId,
      sha256: intentId,
      path,
      pages: null,
    });
    mkdirSync(stateDir, { recursive: true });
    const records = [...job(mine, 'job_mine'), ...job(theirs, 'job_secret'), upload(mine, 'u-mine'), upload(theirs, 'u-secret')];
    writeFileSync(join(stateDir, 'journal.ndjson'), records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    const failed = (path: string) => ({ file: path, source: path, status: 'failed', code: 'invalid_file', message: 'broken' });
    await writeLastRunReport(stateDir, account, {
      started_at: new Date(now).toISOString(),
      finished_at: new Date(now).toISOString(),
      out_dir: out,
      counts: { failed: 3 },
      files: [failed(mine), failed(theirs), { file: 'secret-unplaced.pdf', status: 'failed', code: 'file_not_found', message: 'gone' }],
    });
    const { client, stderr } = await connect(emu, out, [], env, { cwd: root, roots: () => [root] });
    // With an outputSchema listed, the SDK's client checks the answer below against it: one of each kind of entry.
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'jobs')?.outputSchema?.type).toBe('object');
    const listed = await client.callTool({ name: 'jobs', arguments: {} });
    expect(listed.isError, stderr()).toBeFalsy();
    const content = listed.structuredContent as {
      jobs: { file: string; resume: string }[];
      unanswered_uploads: { file: string }[];
      failed_files: { file: string }[];
    };
    expect(content.jobs.map((entry) => [entry.file, entry.resume])).toEqual([[mine, 'docextract collect job_mine']]);
    expect(content.unanswered_uploads.map((entry) => entry.file)).toEqual([mine]);
    expect(content.failed_files.map((entry) => entry.file)).toEqual([mine]);
    expect(textOf(listed)).not.toContain('secret');
  });
});
