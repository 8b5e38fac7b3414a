/**
 * The library as a user gets it: `npm pack`, the tarball installed into a new
 * project, the README's "Use it from code" example compiled there with
 * `tsc --strict` (declarations and the `exports` map included) and run
 * against the emulator: every document complete, each page charged once.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { TEST_KEY, batchFiles, expectEachUploadedOnce, startTestEmulator, totalPages, MIXED_FILES } from '../helpers/emulator-run.js';
import { expectCompleteResult, makeWorkspace } from '../helpers/workspace.js';

const root = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

const FILES = MIXED_FILES;

/** The first TypeScript block of the README's "Use it from code" section, as written. */
function readmeExample(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Use it from code'));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block?.[1]) throw new Error('README has no TypeScript example under "## Use it from code"');
  return block[1];
}

let project: string;
let emulator: RunningEmulator | undefined;

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'docextract-user-'));
  // dist is built by test/global-setup.ts; --ignore-scripts packs it as it is.
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', project], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const tarball = join(project, (JSON.parse(packed) as { filename: string }[])[0]?.filename ?? '');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'docextract-user', private: true, type: 'module' }));
  await run('npm', ['install', tarball, '@types/node@^20', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: project });
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'], outDir: 'out', skipLibCheck: false }, include: ['*.ts'] }),
  );
  writeFileSync(join(project, 'extract-folder.ts'), readmeExample());
  // The second entry point of the exports map: the emulator, for testing a pipeline in-process.
  writeFileSync(
    join(project, 'emulator-check.ts'),
    "import { startEmulator } from 'docextract/emulator';\nconst emu = await startEmulator({ keys: ['sk_0123456789abcdef0123456789abcdef'] });\nconsole.log(emu.url);\nawait emu.close();\n",
  );
}, 240_000);

afterAll(async () => {
  await emulator?.close();
});

describe('the packed library in a new project', () => {
  it('the README example compiles under tsc --strict against the installed declarations', async () => {
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    const compiled = await run(process.execPath, [tsc, '-p', project], { cwd: project }).catch((error: { stdout: string }) => ({ stdout: error.stdout, failed: true }));
    expect(compiled.stdout).toBe('');
    const served = await run(process.execPath, [join(project, 'out/emulator-check.js')], { cwd: project });
    expect(served.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/);
  }, 120_000);

  it('extracts a folder of images and multi-page PDFs against the emulator: one line per document, each page charged once', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace(batchFiles(FILES));
    const stateDir = join(ws.dir, 'state');
    mkdirSync(stateDir, { recursive: true });
    const env = { PATH: process.env.PATH, HOME: ws.dir, DOCEXTRACT_API_KEY: TEST_KEY, DOCEXTRACT_BASE_URL: emu.url, DOCEXTRACT_STATE_DIR: stateDir, DOCEXTRACT_RATE_LIMIT: '60/1s' };
    const { stdout } = await run(process.execPath, [join(project, 'out/extract-folder.js'), ws.inputs, ws.out], { cwd: project, env });
    const lines = stdout.trim().split('\n');
    expect(lines.filter((line) => line.startsWith('complete '))).toHaveLength(FILES.length);
    expect(lines.at(-1)).toBe(`${FILES.length} documents, ${totalPages(FILES)} credits, ${lines.at(-1)?.match(/(\d+) requests/)?.[1]} requests`);
    for (const file of FILES) expectCompleteResult(join(ws.out, `${file.target}.json`), join(ws.inputs, file.target), file.pages);
    expect(emu.counters.creditsCharged).toBe(totalPages(FILES));
    expectEachUploadedOnce(emu, FILES, ws.inputs);
  }, 120_000);
});
