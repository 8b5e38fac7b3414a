/**
 * The library as a user gets it, set up as docs/library.md's "Use it from code"
 * says: its set-up commands run in a new folder, its tsconfig.json and example
 * written from docs/library.md's text, compiled as docs/library.md does (`npx tsc`) and
 * run against the emulator: a folder extracted (every document complete, each
 * page charged once), and a wrong key and a bad option each ending in one
 * `stopped:` line with its code, not a stack trace.
 *
 * Hermetic: no registry is asked (npm points at a refused port, offline). The
 * packed tarball stands for `docextract`, and the TypeScript and @types/node
 * our lockfile pins stand for docs/library.md's `npm install --save-dev` (see
 * test/helpers/readme-project.ts). docs/library.md's install with the registry's
 * newest TypeScript is `npm run test:latest-typescript`.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TEST_KEY, batchFiles, expectEachUploadedOnce, startTestEmulator, totalPages, MIXED_FILES } from '../helpers/emulator-run.js';
import {
  build,
  compile,
  INSTALL_DOCEXTRACT,
  INSTALL_TYPESCRIPT,
  installedVersion,
  NO_REGISTRY_ENV,
  readmeProject,
  root,
  run,
  setUp,
  tsconfig,
} from '../helpers/readme-project.js';
import { labelledPdf } from '../helpers/make-pdf.js';
import { expectCompleteResult, makeWorkspace } from '../helpers/workspace.js';

const FILES = MIXED_FILES;

let project: string;
let emulator: RunningEmulator | undefined;

beforeAll(async () => {
  project = await readmeProject('offline');
}, 300_000);

afterAll(async () => {
  await emulator?.close();
});

function exampleEnv(dir: string, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const stateDir = join(dir, 'state');
  mkdirSync(stateDir, { recursive: true });
  return { PATH: process.env.PATH, HOME: dir, DOCEXTRACT_STATE_DIR: stateDir, ...extra };
}

describe('the packed library in a new project, set up as docs/library.md says', () => {
  it('uses the set-up the README names: an ES module project, tsconfig with module nodenext and strict', () => {
    expect(setUp).toEqual(['mkdir extract-folder && cd extract-folder', 'npm init -y', 'npm pkg set type=module', INSTALL_DOCEXTRACT, INSTALL_TYPESCRIPT]);
    expect(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'))).toMatchObject({ type: 'module' });
    const options = (JSON.parse(tsconfig) as { compilerOptions: Record<string, unknown> }).compilerOptions;
    expect(options).toMatchObject({ module: 'nodenext', strict: true });
    expect(options.skipLibCheck, 'the declarations are checked too').toBeUndefined();
    expect(build[0]).toBe('npx tsc');
    expect(build[1]).toMatch(/^DOCEXTRACT_API_KEY=\S+ node dist\/extract-folder\.js \S+ \S+$/);
  });

  // The bound: tsc type-checks our declarations and @types/node, 10 s of CPU, minutes on a loaded 2-core machine.
  it('compiles with the TypeScript our lockfile pins (5.9) and @types/node 20, as the README builds it (npx tsc), under --strict, with no registry', async () => {
    expect(installedVersion(project, 'typescript')).toBe(installedVersion(root, 'typescript'));
    expect(installedVersion(project, 'typescript')).toMatch(/^5\.9\./);
    expect(installedVersion(project, '@types/node')).toMatch(/^20\./);
    expect(await compile(project, ['--strict'], { ...process.env, ...NO_REGISTRY_ENV })).toBe('');
    const served = await run(process.execPath, [join(project, 'dist/emulator-check.js')], { cwd: project });
    expect(served.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/);
  }, 300_000);

  it('extracts a folder of images and multi-page PDFs against the emulator: one line per document, each page charged once', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace(batchFiles(FILES));
    const env = exampleEnv(ws.dir, { DOCEXTRACT_API_KEY: TEST_KEY, DOCEXTRACT_BASE_URL: emu.url, DOCEXTRACT_RATE_LIMIT: '60/1s' });
    const { stdout } = await run(process.execPath, [join(project, 'dist/extract-folder.js'), ws.inputs, ws.out], { cwd: project, env });
    const lines = stdout.trim().split('\n');
    expect(lines.filter((line) => line.startsWith('complete '))).toHaveLength(FILES.length);
    expect(lines.at(-1)).toBe(`${FILES.length} documents, ${totalPages(FILES)} credits, ${lines.at(-1)?.match(/(\d+) requests/)?.[1]} requests`);
    for (const file of FILES) expectCompleteResult(join(ws.out, `${file.target}.json`), join(ws.inputs, file.target), file.pages);
    expect(emu.counters.creditsCharged).toBe(totalPages(FILES));
    expectEachUploadedOnce(emu, FILES, ws.inputs);
  }, 120_000);

  it("extracts a 151-page PDF, past the service's 150-page limit, in two parts: one line, complete, each page charged once", async () => {
    const emu = (emulator ??= await startTestEmulator());
    const ws = makeWorkspace({});
    mkdirSync(ws.inputs, { recursive: true });
    writeFileSync(join(ws.inputs, 'statement.pdf'), await labelledPdf('Statement', 151));
    const env = exampleEnv(ws.dir, { DOCEXTRACT_API_KEY: TEST_KEY, DOCEXTRACT_BASE_URL: emu.url, DOCEXTRACT_RATE_LIMIT: '60/1s' });
    const chargedBefore = emu.counters.creditsCharged;
    const { stdout } = await run(process.execPath, [join(project, 'dist/extract-folder.js'), ws.inputs, ws.out], { cwd: project, env });
    const lines = stdout.trim().split('\n');
    expect(lines.filter((line) => line.startsWith('complete '))).toEqual([expect.stringContaining('statement.pdf')]);
    expect(lines.at(-1)).toMatch(/^1 documents?, 151 credits, \d+ requests$/);
    const result = JSON.parse(readFileSync(join(ws.out, 'statement.pdf.json'), 'utf8')) as {
      status: string;
      parts: { status: string; source_pages: number[] }[];
    };
    expect(result.status).toBe('complete');
    expect(result.parts.map((part) => [part.status, part.source_pages.length])).toEqual([
      ['complete', 150],
      ['complete', 1],
    ]);
    expect(emu.counters.creditsCharged - chargedBefore).toBe(151);
  }, 120_000);

  it.each([
    ['a key the service refuses', { DOCEXTRACT_API_KEY: 'sk_00000000000000000000000000000000' }, /^stopped: .+ \(invalid_api_key\)\n$/],
    ['a bad option', { DOCEXTRACT_API_KEY: TEST_KEY, DOCEXTRACT_RATE_LIMIT: 'often' }, /^stopped: rateLimit: .+ \(invalid_option\)\n$/],
  ])(
    'ends %s with one line naming its code, and no stack trace',
    async (_what, extra, said) => {
      const emu = (emulator ??= await startTestEmulator());
      const ws = makeWorkspace(batchFiles(FILES.slice(0, 1)));
      const env = exampleEnv(ws.dir, { DOCEXTRACT_BASE_URL: emu.url, ...extra });
      const failed = await run(process.execPath, [join(project, 'dist/extract-folder.js'), ws.inputs, ws.out], { cwd: project, env }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed.stderr).toMatch(said);
      expect(failed.stderr).not.toMatch(/\n\s+at /);
      expect(failed.code).toBe(2);
    },
    60_000,
  );
});
