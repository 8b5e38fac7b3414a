/**
 * The library as a user gets it, set up as the README's "Use it from code"
 * says, literally: its set-up commands run in a new folder (the packed
 * tarball installed for `docextract`, the latest TypeScript from the
 * registry), its tsconfig.json and example written from the README's text,
 * compiled with that TypeScript and with TypeScript 5.9 (our devDependency),
 * and run against the emulator: a folder extracted (every document complete,
 * each page charged once), and a wrong key and a bad option each ending in
 * one `stopped:` line with its code, not a stack trace.
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

/** The code blocks of the README's "Use it from code" section, in order, as written. */
function readmeBlocks(): { lang: string; text: string }[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const from = readme.indexOf('## Use it from code');
  const section = readme.slice(from, readme.indexOf('\n## ', from + 1));
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((match) => ({ lang: match[1] as string, text: match[2] as string }));
}

/** The non-empty, non-comment lines of a shell block. */
function commandLines(text: string): string[] {
  return text.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
}

const blocks = readmeBlocks();
const [setUp, build] = blocks.filter((block) => block.lang === 'sh').map((block) => commandLines(block.text));
const tsconfig = blocks.find((block) => block.lang === 'json')?.text;
const example = blocks.find((block) => block.lang === 'ts')?.text;

let project: string;
let latestTypeScript: string;
let emulator: RunningEmulator | undefined;

beforeAll(async () => {
  if (!setUp || !build || !tsconfig || !example) throw new Error('README "Use it from code" must hold a set-up sh block, a tsconfig.json json block, a ts example and a build-and-run sh block');
  const parent = mkdtempSync(join(tmpdir(), 'docextract-user-'));
  // dist is built by test/global-setup.ts; --ignore-scripts packs it as it is.
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', parent], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const tarball = join(parent, (JSON.parse(packed) as { filename: string }[])[0]?.filename ?? '');
  // The README's set-up as one script, the package name standing for the packed file (it is not published from here).
  const script = setUp.map((line) => (line === 'npm install docextract' ? `npm install ${tarball}` : line)).join('\n');
  expect(script, 'the set-up installs docextract').toContain(`npm install ${tarball}`);
  try {
    await run('bash', ['-e', '-c', script], { cwd: parent, env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_loglevel: 'error', npm_config_update_notifier: 'false' } });
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`The README's set-up failed; without the registry the latest TypeScript cannot be installed, so this test cannot pass:\n${script}\n${stderr ?? String(error)}`);
  }
  project = join(parent, /^mkdir (\S+)/.exec(setUp[0] ?? '')?.[1] ?? '.');
  latestTypeScript = (JSON.parse(readFileSync(join(project, 'node_modules/typescript/package.json'), 'utf8')) as { version: string }).version;
  console.log(`library-package: the README's set-up installed TypeScript ${latestTypeScript} (latest on the registry)`);
  writeFileSync(join(project, 'tsconfig.json'), tsconfig);
  writeFileSync(join(project, /^\/\/ (\S+\.ts)/.exec(example)?.[1] ?? 'extract-folder.ts'), example);
  // The second entry point of the exports map: the emulator, for testing a pipeline in-process.
  writeFileSync(
    join(project, 'emulator-check.ts'),
    "import { startEmulator } from 'docextract/emulator';\nconst emu = await startEmulator({ keys: ['sk_0123456789abcdef0123456789abcdef'] });\nconsole.log(emu.url);\nawait emu.close();\n",
  );
}, 300_000);

afterAll(async () => {
  await emulator?.close();
});

/** Compile the project; '' when tsc said nothing (no error). */
async function compile(tsc: string[], extra: string[]): Promise<string> {
  const [command, ...args] = tsc;
  const compiled = await run(command as string, [...args, ...extra], { cwd: project }).catch((error: { stdout: string; stderr: string }) => ({ stdout: `${error.stdout}${error.stderr}` }));
  return compiled.stdout;
}

function exampleEnv(dir: string, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const stateDir = join(dir, 'state');
  mkdirSync(stateDir, { recursive: true });
  return { PATH: process.env.PATH, HOME: dir, DOCEXTRACT_STATE_DIR: stateDir, ...extra };
}

describe('the packed library in a new project, set up as the README says', () => {
  it('uses the set-up the README names: an ES module project, tsconfig with module nodenext and strict', () => {
    expect(setUp).toEqual(expect.arrayContaining(['npm init -y', 'npm pkg set type=module']));
    expect(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'))).toMatchObject({ type: 'module' });
    const options = (JSON.parse(tsconfig ?? '{}') as { compilerOptions: Record<string, unknown> }).compilerOptions;
    expect(options).toMatchObject({ module: 'nodenext', strict: true });
    expect(options.skipLibCheck, 'the declarations are checked too').toBeUndefined();
    expect(build?.[0]).toBe('npx tsc');
    expect(build?.[1]).toMatch(/^DOCEXTRACT_API_KEY=\S+ node dist\/extract-folder\.js \S+ \S+$/);
  });

  it('compiles with the latest TypeScript, as the README builds it (npx tsc), under --strict', async () => {
    expect(await compile(['npx', 'tsc'], ['--strict'])).toBe('');
    const served = await run(process.execPath, [join(project, 'dist/emulator-check.js')], { cwd: project });
    expect(served.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/);
  }, 120_000);

  it('compiles with TypeScript 5.9 under --strict', async () => {
    const tsc59 = join(root, 'node_modules/typescript/bin/tsc');
    expect((JSON.parse(readFileSync(join(root, 'node_modules/typescript/package.json'), 'utf8')) as { version: string }).version).toMatch(/^5\.9\./);
    expect(await compile([process.execPath, tsc59], ['--strict', '--outDir', 'dist-ts5.9'])).toBe('');
  }, 120_000);

  it('extracts a folder of images and multi-page PDFs against the emulator: one line per document, each page charged once', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace(batchFiles(FILES));
    const env = exampleEnv(ws.dir, { DOCEXTRACT_API_KEY: TEST_KEY, DOCEXTRACT_BASE_URL: emu.url, DOCEXTRACT_RATE_LIMIT: '60/1s' });
    const { stdout } = await run(process.execPath, [join(project, 'dist-ts5.9/extract-folder.js'), ws.inputs, ws.out], { cwd: project, env });
    const lines = stdout.trim().split('\n');
    expect(lines.filter((line) => line.startsWith('complete '))).toHaveLength(FILES.length);
    expect(lines.at(-1)).toBe(`${FILES.length} documents, ${totalPages(FILES)} credits, ${lines.at(-1)?.match(/(\d+) requests/)?.[1]} requests`);
    for (const file of FILES) expectCompleteResult(join(ws.out, `${file.target}.json`), join(ws.inputs, file.target), file.pages);
    expect(emu.counters.creditsCharged).toBe(totalPages(FILES));
    expectEachUploadedOnce(emu, FILES, ws.inputs);
  }, 120_000);

  it.each([
    ['a key the service refuses', { DOCEXTRACT_API_KEY: 'sk_00000000000000000000000000000000' }, /^stopped: .+ \(invalid_api_key\)\n$/],
    ['a bad option', { DOCEXTRACT_API_KEY: TEST_KEY, DOCEXTRACT_RATE_LIMIT: 'often' }, /^stopped: rateLimit: .+ \(invalid_option\)\n$/],
  ])('ends %s with one line naming its code, and no stack trace', async (_what, extra, said) => {
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
  }, 60_000);
});
