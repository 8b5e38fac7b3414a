import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { ChildResult } from '../helpers/child-run.js';
import { MIXED_FILES, TEST_KEY, batchFiles, startTestEmulator, totalPages } from '../helpers/emulator-run.js';
import { hostilePdf } from '../helpers/hostile-pdf.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';

/** Built by `npm run test:binary` (npm run build:binary) just before this file runs. */
const BUILT = resolve(import.meta.dirname, '../../dist-bin');

let emulator: RunningEmulator;
let folder: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  emulator = await startTestEmulator();
  // The executable and its one folder, alone in an empty folder; no PATH leads to a node.
  folder = mkdtempSync(join(tmpdir(), 'docextract-binary-'));
  cpSync(join(BUILT, 'docextract'), join(folder, 'docextract'));
  cpSync(join(BUILT, 'docextract-assets'), join(folder, 'docextract-assets'), { recursive: true });
  env = {
    PATH: '/nonexistent',
    HOME: folder,
    DOCEXTRACT_BASE_URL: emulator.url,
    DOCEXTRACT_API_KEY: TEST_KEY,
    DOCEXTRACT_STATE_DIR: join(folder, 'state'),
    NO_COLOR: '1',
  };
});
afterAll(async () => {
  await emulator?.close();
});

function runBinary(args: string[], cwd = folder): Promise<ChildResult> {
  const child = spawn(join(folder, 'docextract'), args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('close', (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

describe('dist-bin/docextract, copied alone into an empty folder', () => {
  it('is alone with its assets folder, and no node is on PATH', () => {
    expect(readdirSync(folder).sort()).toEqual(['docextract', 'docextract-assets']);
    expect(existsSync(join(folder, 'node_modules'))).toBe(false);
    expect(env.PATH?.split(':').some((dir) => existsSync(join(dir, 'node')))).toBe(false);
  });

  it('answers --version and --help', async () => {
    const version = await runBinary(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: '0.1.0\n', stderr: '' });
    const help = await runBinary(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('extract [options] [inputs...]');
  });

  it('extracts a mixed folder against the emulator (images, a PDF answered at once, PDFs that split), and cuts pages with pdf-lib', async () => {
    const ws = makeWorkspace(batchFiles(MIXED_FILES));
    const run = await runBinary(['extract', ws.inputs, '--out', ws.out, '--rate-limit', 'none', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const lines = parseNdjson(run.stdout);
    expect(lines.map((line) => line.status)).toEqual(MIXED_FILES.map(() => 'complete'));
    expect(lines.reduce((sum, line) => sum + (line.pages as number), 0)).toBe(totalPages(MIXED_FILES));
    const cut = await runBinary(['extract', join(ws.inputs, 'long/twelve.pdf'), '--pages', '1,-1', '--out', ws.out, '--rate-limit', 'none', '--json']);
    expect(cut.code, cut.stderr).toBe(0);
    expect(parseNdjson(cut.stdout)[0]).toMatchObject({ status: 'complete', pages: 2 });
  });

  it('serves the review page with pdf.js from its assets folder', async () => {
    const ws = makeWorkspace({ 'a.png': 'images/receipt.jpg' });
    const child = spawn(join(folder, 'docextract'), ['review', ws.dir], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const closed = new Promise((done) => child.once('close', done));
    try {
      const url = await new Promise<string>((found, fail) => {
        let printed = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          printed += chunk;
          const line = /^(http:\/\/\S+)\n/.exec(printed);
          if (line?.[1]) found(line[1]);
        });
        child.once('close', (code) => fail(new Error(`review ended (${code}) before printing its URL`)));
      });
      const worker = await fetch(`${url}pdfjs/build/pdf.worker.min.mjs`);
      expect(worker.status).toBe(200);
      expect((await worker.text()).length).toBeGreaterThan(100_000);
    } finally {
      child.kill('SIGINT');
      await closed;
    }
  });

  it("counts a PDF's pages in a worker started from its bundled code: SIGTERM during a hostile file's count ends the count, and the file is interrupted", async () => {
    const ws = makeWorkspace({});
    mkdirSync(ws.inputs, { recursive: true });
    const child = spawn(join(folder, 'docextract'), ['watch', ws.inputs, '--out', ws.out, '--json', '--settle', '100ms', '--rate-limit', 'none'], {
      env: { ...env, DOCEXTRACT_LOG: 'debug' },
      cwd: folder,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const closed = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
    try {
      await waitFor(() => stderr.includes('watching '), 'the watch to watch its folder');
      writeFileSync(join(ws.dir, 'hostile.pdf'), hostilePdf({ pages: 50, streams: 5, inflatedBytesPerStream: 56 * 1024 * 1024 }));
      renameSync(join(ws.dir, 'hostile.pdf'), join(ws.inputs, 'hostile.pdf'));
      await waitFor(() => stderr.includes('debug: counting the pages of'), 'the page count to start');
      child.kill('SIGTERM');
      expect(await closed, stderr).toBe(130);
      // In-thread (no worker), SIGTERM would be heard only once the count ran to its budget: pdf_too_complex.
      expect(stderr).toContain('debug: stopped counting the pages of');
      expect(parseNdjson(stdout)).toEqual([expect.objectContaining({ status: 'interrupted', error: expect.objectContaining({ code: 'interrupted' }) })]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
