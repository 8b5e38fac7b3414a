/**
 * The engine as a library (`import … from 'docextract'`): what a Node
 * service gets, against the emulator in-process, and the CLI finishing what
 * a library run left. A CLI command after a library run runs in this
 * process (it is only the next command); one beside a library run is a
 * process of its own (see each).
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { extractDocuments, InvalidOptionError, UnknownModelError, type DocumentOutcome, type ResultDocument } from '../../src/index.js';
import { withSourceResolved } from '../../src/batch/result-file.js';
import type { EmulatorEvent, RunningEmulator } from '../../src/emulator/index.js';
import { runChildCli } from '../helpers/child-run.js';
import { TEST_KEY, batchFiles, emulatorEnv, expectEachUploadedOnce, startTestEmulator, totalPages, MIXED_FILES } from '../helpers/emulator-run.js';
import { firstUpload, holdAnswersUntilReleased, waitForClient } from '../helpers/held-answers.js';
import { runCli } from '../helpers/run-cli.js';
import { makePdfWithPages } from '../../fixtures/large.js';
import { SERVICE_LIMITS } from '../../src/api/limits.js';
import { CORPUS, expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../helpers/workspace.js';

const FILES = MIXED_FILES;

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function collect(run: AsyncIterable<DocumentOutcome>): Promise<DocumentOutcome[]> {
  const outcomes: DocumentOutcome[] = [];
  for await (const outcome of run) outcomes.push(outcome);
  return outcomes;
}

/** A report's counts by status: those given, every other status 0. */
function counts(some: Partial<Record<DocumentOutcome['status'], number>>): Record<DocumentOutcome['status'], number> {
  return { complete: 0, partial: 0, failed: 0, skipped: 0, interrupted: 0, ...some };
}

/** Options of a library run on the emulator, with the state folder of the CLI run with `env`. */
function libraryOptions(emu: RunningEmulator, out: string, env: NodeJS.ProcessEnv = emulatorEnv(emu)) {
  const stateDir = env.DOCEXTRACT_STATE_DIR as string;
  return { apiKey: TEST_KEY, baseUrl: emu.url, out, stateDir, rateLimit: 'none', settings: { retryBaseMs: 5, retryMaxMs: 50, conflictDelayMs: 20 } };
}

describe('extractDocuments: the engine as a library', () => {
  it('a folder of images and multi-page PDFs: every document complete as it finishes, each page charged once, results on disk', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace(batchFiles(FILES));
    const run = extractDocuments([ws.inputs], libraryOptions(emu, ws.out));
    const outcomes = await collect(run);
    const report = await run.done;
    expect(outcomes.map((outcome) => outcome.status)).toEqual(FILES.map(() => 'complete'));
    expect(outcomes.map((outcome) => typeof outcome.data)).toEqual(FILES.map(() => 'object'));
    for (const file of FILES) expectCompleteResult(join(ws.out, `${file.target}.json`), join(ws.inputs, file.target), file.pages);
    expect(emu.counters.creditsCharged).toBe(totalPages(FILES));
    expect(report.credits).toBe(totalPages(FILES));
    // Flat by default: every outcome was read from the iteration, the report counts them and keeps none.
    expect(report.counts).toEqual(counts({ complete: FILES.length }));
    expect(report.outcomes).toEqual([]);
    expectEachUploadedOnce(emu, FILES, ws.inputs);
  });

  it('a stream of paths is taken while the run runs; a copy rides on its original, a file answered on disk costs nothing', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace(batchFiles(FILES));
    mkdirSync(join(ws.inputs, 'again'), { recursive: true });
    copyFileSync(join(CORPUS, 'pdf/pages-12.pdf'), join(ws.inputs, 'again/twelve-copy.pdf'));
    await collect(extractDocuments([join(ws.inputs, 'img')], libraryOptions(emu, ws.out)));
    const creditsBefore = emu.counters.creditsCharged;

    let uploadsSeen = 0;
    emu.events.on('event', (event: EmulatorEvent) => {
      if (event.type === 'upload') uploadsSeen += 1;
    });
    async function* arriving(): AsyncGenerator<string | string[]> {
      yield join(ws.inputs, 'img/receipt.jpg'); // answered by its result on disk
      yield [join(ws.inputs, 'long/twelve.pdf'), join(ws.inputs, 'short/three.pdf')];
      // The next file arrives only once the run has sent something: it takes documents while it runs.
      while (uploadsSeen === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      yield join(ws.inputs, 'again/twelve-copy.pdf');
    }
    const run = extractDocuments(arriving(), { ...libraryOptions(emu, ws.out), cwd: ws.inputs });
    const outcomes = await collect(run);
    const byFile = new Map(outcomes.map((outcome) => [outcome.file, outcome]));
    expect([...byFile.keys()].sort()).toEqual(['again/twelve-copy.pdf', 'img/receipt.jpg', 'long/twelve.pdf', 'short/three.pdf']);
    expect([...byFile.values()].map((outcome) => outcome.status)).toEqual(['complete', 'complete', 'complete', 'complete']);
    expect(byFile.get('img/receipt.jpg')?.reused).toEqual(expect.any(String));
    expect(emu.counters.creditsCharged - creditsBefore).toBe(12 + 3);
    expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'long/twelve.pdf'))]).toBe(1);
    expectCompleteResult(join(ws.out, 'again/twelve-copy.pdf.json'), join(ws.inputs, 'again/twelve-copy.pdf'), 12);
    const report = await run.done;
    expect(report.credits).toBe(15);
    // A stream keeps no outcome either: the report counts them.
    expect(report.counts).toEqual(counts({ complete: 4 }));
    expect(report.outcomes).toEqual([]);
  });

  it('a 151-page PDF in a stream of paths is cut into parts, as extract cuts it: one outcome, complete, its parts inside it', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'one.png': 'images/id-card.png' });
    writeFileSync(join(ws.inputs, 'long.pdf'), Buffer.from(await makePdfWithPages(SERVICE_LIMITS.maxPages + 1)));
    async function* arriving(): AsyncGenerator<string> {
      yield join(ws.inputs, 'long.pdf');
      yield join(ws.inputs, 'one.png');
    }
    // Kept: the report has each source once, its parts inside it.
    const run = extractDocuments(arriving(), { ...libraryOptions(emu, ws.out), cwd: ws.inputs, keepOutcomes: true });
    const outcomes = await collect(run);
    const report = await run.done;
    expect(outcomes.map((outcome) => [outcome.file, outcome.status]).sort()).toEqual([
      ['long.pdf', 'complete'],
      ['one.png', 'complete'],
    ]);
    const long = outcomes.find((outcome) => outcome.file === 'long.pdf');
    expect(long?.parts?.map((part) => [part.status, part.source_pages.length])).toEqual([
      ['complete', 150],
      ['complete', 1],
    ]);
    expect(report.outcomes.map((outcome) => outcome.file).sort()).toEqual(['long.pdf', 'one.png']);
    expect(report.counts).toEqual(counts({ complete: 2 }));
    expect(JSON.parse(readFileSync(join(ws.out, 'long.pdf.json'), 'utf8'))).toMatchObject({ status: 'complete', source: { pages: 151 } });
    expect(emu.counters.creditsCharged).toBe(152);
  });

  it('onResult gets each result once it is on disk and before its job is finalized', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace(batchFiles(FILES));
    const order: string[] = [];
    emu.events.on('event', (event: EmulatorEvent) => {
      if (event.type === 'finalize') order.push(`finalize ${event.jobId ?? ''}`);
    });
    const sunk: ResultDocument[] = [];
    // What was at the path when the sink was called (read there, judged after the run: a throw inside the sink would be the run's).
    const onDisk: (string | null)[] = [];
    const sunkPaths: string[] = [];
    const run = extractDocuments([ws.inputs], {
      ...libraryOptions(emu, ws.out),
      onResult: (result, path) => {
        onDisk.push(existsSync(path) ? readFileSync(path, 'utf8') : null);
        sunkPaths.push(path);
        sunk.push(result);
        if (result.job) order.push(`sink ${result.job.parent_job_id}`);
      },
    });
    await run.done;
    expect(sunk.map((result) => result.source.sha256).sort()).toEqual(FILES.map((file) => sha256Of(join(ws.inputs, file.target))).sort());
    // The file at the path, when the sink ran, was the whole result it was given (its source, recorded from the result's folder, read back absolute).
    expect(onDisk.map((text, i) => (text === null ? null : withSourceResolved(sunkPaths[i] as string, JSON.parse(text) as unknown)))).toEqual(sunk);
    for (const result of sunk) expect(isAbsolute(result.source.path)).toBe(true);
    const jobs = sunk.flatMap((result) => (result.job ? [result.job.parent_job_id] : []));
    expect(jobs).toHaveLength(2);
    for (const job of jobs) expect(order.indexOf(`sink ${job}`)).toBeLessThan(order.indexOf(`finalize ${job}`));
  });

  it('an aborted library run is finished by the CLI: nothing is uploaded or charged twice', async () => {
    const emu = (emulator = await startTestEmulator({ latencyMs: { process: 40 } }));
    const ws = makeWorkspace(batchFiles(FILES));
    const stop = new AbortController();
    emu.events.on('event', (event: EmulatorEvent) => {
      if (event.type === 'chunk_processed') stop.abort();
    });
    const env = emulatorEnv(emu);
    const run = extractDocuments([ws.inputs], { ...libraryOptions(emu, ws.out, env), signal: stop.signal });
    const first = await collect(run);
    const report = await run.done;
    expect(report.interrupted).toBe(true);
    expect(first.some((outcome) => outcome.status === 'interrupted')).toBe(true);

    const jobs = await runCli(['jobs', '--json'], { env });
    expect(jobs.code, jobs.stderr).toBe(0);
    expect(jobs.stdout).toContain('interrupted');

    const rerun = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none'], { env });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(parseNdjson(rerun.stdout).map((line) => line.status)).toEqual(FILES.map(() => 'complete'));
    expect(emu.counters.creditsCharged).toBe(totalPages(FILES));
    expectEachUploadedOnce(emu, FILES, ws.inputs);
  });

  it('an aborted library run and its resumption record every credit once, each by the run that was charged it: usage --json totals the credits answered', async () => {
    // Split documents only, stopped at their first processed chunk: each has paid for a chunk and is not finished.
    const split = FILES.filter((file) => file.pages > 3);
    const emu = (emulator = await startTestEmulator({ latencyMs: { process: 40 } }));
    const ws = makeWorkspace(batchFiles(split));
    const stop = new AbortController();
    emu.events.on('event', (event: EmulatorEvent) => {
      if (event.type === 'chunk_processed') stop.abort();
    });
    const env = emulatorEnv(emu);
    const run = extractDocuments([ws.inputs], { ...libraryOptions(emu, ws.out, env), signal: stop.signal });
    const outcomes = await collect(run);
    await run.done;
    expect(outcomes.some((outcome) => outcome.status !== 'complete')).toBe(true);
    expect(emu.counters.creditsCharged).toBeGreaterThan(0);
    // The same files again, to the end: the resumed jobs' outcomes carry the chunks the first run paid for, which it recorded.
    const again = extractDocuments([ws.inputs], libraryOptions(emu, ws.out, env));
    expect((await collect(again)).map((outcome) => outcome.status)).toEqual(split.map(() => 'complete'));
    expect(emu.counters.creditsCharged).toBe(totalPages(split));
    const usage = await runCli(['usage', '--json'], { env });
    expect(usage.code, usage.stderr).toBe(0);
    const total = (JSON.parse(usage.stdout) as { total: { credits: number; runs: number } }).total;
    expect(total).toMatchObject({ credits: emu.counters.creditsCharged, runs: 2 });
  });

  it('by default a run keeps no outcome: every one comes from the iteration, the report counts them all and lists only the files that did not complete', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ ...batchFiles(FILES.slice(0, 2)), 'notes.txt': 'pdf/pages-1.pdf' });
    writeFileSync(join(ws.inputs, 'notes.txt'), 'not a document');
    // Every result fails its check: a complete document whose outcome is not kept is still counted so.
    const checker = { check: () => ({ schema: join(ws.dir, 'any.schema.json'), passed: false, problems: [] }) };
    const run = extractDocuments([ws.inputs, join(ws.inputs, 'notes.txt')], { ...libraryOptions(emu, ws.out), checker });
    const outcomes = await collect(run);
    const report = await run.done;
    expect(outcomes.filter((outcome) => outcome.status === 'complete')).toHaveLength(2);
    expect(report.counts).toEqual(counts({ complete: 2, failed: 1 }));
    expect(report.checksFailed).toBe(2);
    expect(report.outcomes.map((outcome) => [outcome.file.split('/').pop(), outcome.status])).toEqual([['notes.txt', 'failed']]);
  });

  it('keepOutcomes: true: the report keeps every outcome, without its data, and counts them', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ ...batchFiles(FILES.slice(0, 2)), 'notes.txt': 'pdf/pages-1.pdf' });
    writeFileSync(join(ws.inputs, 'notes.txt'), 'not a document');
    const run = extractDocuments([ws.inputs, join(ws.inputs, 'notes.txt')], { ...libraryOptions(emu, ws.out), keepOutcomes: true });
    const outcomes = await collect(run);
    const report = await run.done;
    const summary = (list: readonly DocumentOutcome[]) => list.map((outcome) => [outcome.file, outcome.status]).sort();
    expect(summary(report.outcomes)).toEqual(summary(outcomes));
    expect(report.outcomes).toHaveLength(3);
    expect(report.outcomes.map((outcome) => outcome.data)).toEqual([undefined, undefined, undefined]);
    expect(report.counts).toEqual(counts({ complete: 2, failed: 1 }));
  });

  it('kill -9 of a process running the library mid-batch: the CLI finishes its work without a new upload, each page charged once', async () => {
    // Split documents only: their manifests are journaled before any chunk is processed, so nothing may be uploaded twice.
    const split = FILES.filter((file) => file.pages > 3);
    let holding = false;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let firstChunk: () => void = () => undefined;
    const chunked = new Promise<void>((resolve) => (firstChunk = resolve));
    const emu = (emulator = await startTestEmulator({ holdAnswer: () => (holding ? held : undefined) }));
    // A chunk of each document processed: both manifests are journaled (chunks go only after that),
    // so no upload may be repeated. From then on, answers wait until the process is dead: the kill lands mid-run.
    const chunkedDocuments = new Set<string>();
    emu.events.on('event', (event: EmulatorEvent) => {
      if (event.type !== 'chunk_processed' || !event.sha256) return;
      chunkedDocuments.add(event.sha256);
      if (chunkedDocuments.size < split.length) return;
      holding = true;
      firstChunk();
    });
    const ws = makeWorkspace(batchFiles(split));
    const env = emulatorEnv(emu);
    const script = join(ws.dir, 'run-library.mjs');
    const entry = new URL('../../dist/index.js', import.meta.url).href;
    writeFileSync(
      script,
      `import { extractDocuments } from ${JSON.stringify(entry)};\n` +
        `const run = extractDocuments([process.argv[2]], { apiKey: process.env.DOCEXTRACT_API_KEY, baseUrl: process.env.DOCEXTRACT_BASE_URL, out: process.argv[3], rateLimit: 'none' });\n` +
        `for await (const outcome of run) console.log(outcome.status, outcome.file);\n`,
    );
    const child = spawn(process.execPath, [script, ws.inputs, ws.out], { env, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await chunked;
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    holding = false;
    release();

    const rerun = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none'], { env });
    expect(rerun.code, rerun.stderr).toBe(0);
    const lines = parseNdjson(rerun.stdout);
    expect(lines.map((line) => line.status)).toEqual(split.map(() => 'complete'));
    // The inputs' common folder is long/: results mirror the paths below it.
    for (const file of split) expectCompleteResult(join(ws.out, `${file.target.replace('long/', '')}.json`), join(ws.inputs, file.target), file.pages);
    expectEachUploadedOnce(emu, split, ws.inputs);
    expect(emu.counters.creditsCharged).toBe(totalPages(split));
  });

  it('a CLI extract started while a library run holds the state folder rides along: each content is uploaded once, both get every result', async () => {
    // The library run's answers wait until the CLI has joined it (the host lists it in commands.json):
    // without hosting, the CLI would find the folder busy and the run could not go on.
    const held = holdAnswersUntilReleased();
    const emu = (emulator = await startTestEmulator({ holdAnswer: held.holdAnswer }));
    const ws = makeWorkspace(batchFiles(FILES));
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const run = extractDocuments([ws.inputs], libraryOptions(emu, ws.out, env));
    const otherOut = join(ws.dir, 'other-out');
    // A process: in this one, the CLI and the library run would share a pid, and the host's record could not tell the rider apart.
    const cli = runChildCli(['extract', ws.inputs, '--out', otherOut, '--json', '--rate-limit', 'none'], env);
    await waitForClient(stateDir, 'the CLI to join the library run as a client');
    held.release();
    const [done, report] = await Promise.all([cli, run.done]);
    expect(done.code, done.stderr).toBe(0);
    expect(parseNdjson(done.stdout).map((line) => line.status)).toEqual(FILES.map(() => 'complete'));
    expect(report.counts).toEqual(counts({ complete: FILES.length }));
    expect(report.outcomes).toEqual([]);
    for (const file of FILES) expectCompleteResult(join(otherOut, `${file.target}.json`), join(ws.inputs, file.target), file.pages);
    expectEachUploadedOnce(emu, FILES, ws.inputs);
    expect(emu.counters.creditsCharged).toBe(totalPages(FILES));
  });

  it('a library run started while a CLI extract holds the state folder rides along on it: each content is uploaded once, both get every result', async () => {
    const held = holdAnswersUntilReleased();
    const emu = (emulator = await startTestEmulator({ holdAnswer: held.holdAnswer }));
    const ws = makeWorkspace(batchFiles(FILES));
    const env = emulatorEnv(emu);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const uploaded = firstUpload(emu);
    // A process: in this one, the host and the library run riding along would share a pid in the host's record.
    const cli = runChildCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none'], env);
    await uploaded; // the CLI holds the folder and hosts
    const otherOut = join(ws.dir, 'library-out');
    const run = extractDocuments([ws.inputs], libraryOptions(emu, otherOut, env));
    await waitForClient(stateDir, 'the library run to join the CLI as a client');
    held.release();
    const [done, report] = await Promise.all([cli, run.done]);
    expect(done.code, done.stderr).toBe(0);
    // Riding along, the library run counts its own documents as a host would.
    expect(report.counts).toEqual(counts({ complete: FILES.length }));
    expect(report.outcomes).toEqual([]);
    for (const file of FILES) expectCompleteResult(join(otherOut, `${file.target}.json`), join(ws.inputs, file.target), file.pages);
    expectEachUploadedOnce(emu, FILES, ws.inputs);
    expect(emu.counters.creditsCharged).toBe(totalPages(FILES));
  });

  it(
    'a library stream run holds the state folder and hosts no one: a CLI extract started beside it waits, then exits 2 with state_locked naming this process, and sends nothing',
    { timeout: 120_000 },
    async () => {
      const emu = (emulator = await startTestEmulator());
      const ws = makeWorkspace(batchFiles(FILES));
      const env = emulatorEnv(emu);
      let endStream: () => void = () => undefined;
      const streamEnds = new Promise<void>((resolve) => (endStream = resolve));
      async function* arriving(): AsyncGenerator<string> {
        yield join(ws.inputs, 'img/receipt.jpg');
        await streamEnds; // the stream stays open: more paths may come at any time
      }
      const run = extractDocuments(arriving(), libraryOptions(emu, ws.out, env));
      const first = await run[Symbol.asyncIterator]().next(); // its first result: the run holds the folder
      expect(first.value).toMatchObject({ status: 'complete' });
      const uploads = { ...emu.counters.uploadsBySha256 };

      // A process: the folder's lock is held by another live process (this one), whose pid the refusal names.
      // So it waits its real 15 s for a host before it calls the folder busy: that bound, on an injected
      // clock, is test/unit/engine/one-client-wait.test.ts's.
      const cli = await runChildCli(['extract', join(ws.inputs, 'long'), '--out', join(ws.dir, 'cli-out'), '--json', '--rate-limit', 'none'], env);
      expect(cli.code, cli.stderr).toBe(2);
      expect(cli.stderr).toContain('state_locked');
      expect(cli.stderr).toContain(`in use by process ${process.pid}`);
      expect(cli.stdout).toBe('');
      expect(emu.counters.uploadsBySha256).toEqual(uploads);

      endStream();
      const report = await run.done;
      expect(report.counts).toEqual(counts({ complete: 1 }));
    },
  );

  it('bad options and unknown models are errors with a code, before anything is sent', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace(batchFiles(FILES.slice(0, 1)));
    expect(() => extractDocuments([ws.inputs], { ...libraryOptions(emu, ws.out), apiKey: 'sk_nope' })).toThrow(InvalidOptionError);
    expect(() => extractDocuments([ws.inputs], { ...libraryOptions(emu, ws.out), rateLimit: '10/fortnight' })).toThrow(/rateLimit/);
    expect(() => extractDocuments([ws.inputs], { ...libraryOptions(emu, ws.out), baseUrl: 'http://example.com' })).toThrow(
      expect.objectContaining({ code: 'insecure_transport' }),
    );
    // The engine's own rules (the service's 5 open jobs, a TTL up to 2 h, some concurrency), as the CLI gets them.
    for (const settings of [{ openJobCap: 50 }, { ttlMs: 0 }, { openJobCap: 0 }, { concurrency: 0 }, { ttlMs: 3 * 3_600_000 }]) {
      expect(() => extractDocuments([ws.inputs], { ...libraryOptions(emu, ws.out), settings })).toThrow(
        expect.objectContaining({ code: 'invalid_setting', option: `settings.${Object.keys(settings)[0]}` }),
      );
    }
    const run = extractDocuments([ws.inputs], { ...libraryOptions(emu, ws.out), model: 'invoise' });
    await expect(run.done).rejects.toBeInstanceOf(UnknownModelError);
    await expect(collect(run)).rejects.toMatchObject({ code: 'unknown_model' });
    expect(emu.counters.requestsByEndpoint.documents).toBe(0);
    // Nothing was written either: no result, and the input is as it was.
    expect(existsSync(ws.out) ? readdirSync(ws.out) : []).toEqual([]);
    expect(readFileSync(join(ws.inputs, FILES[0]!.target))).toEqual(readFileSync(join(CORPUS, FILES[0]!.source)));
  });

  it('pages: only the chosen pages are sent, and a malformed selection is an error with a code before anything is sent', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace(batchFiles(FILES));
    const run = extractDocuments([ws.inputs], { ...libraryOptions(emu, ws.out), pages: ['long/**=1,-1', '1'] });
    const outcomes = await collect(run);
    expect(outcomes.map((outcome) => [outcome.file.split('/').pop(), outcome.status, outcome.pages])).toEqual(
      expect.arrayContaining([
        ['seven.pdf', 'complete', 2],
        ['twelve.pdf', 'complete', 2],
        ['three.pdf', 'complete', 1],
        ['receipt.jpg', 'complete', 1],
      ]),
    );
    expect(emu.counters.creditsCharged).toBe(2 + 2 + 1 + 1 + 1);
    expect((JSON.parse(readFileSync(join(ws.out, 'long/twelve.pdf.p1,12.json'), 'utf8')) as ResultDocument).source_pages).toEqual([1, 12]);
    expect(() => extractDocuments([ws.inputs], { ...libraryOptions(emu, ws.out), pages: '0' })).toThrow(
      expect.objectContaining({ code: 'invalid_option', message: expect.stringContaining('pages') }),
    );
  });
});
