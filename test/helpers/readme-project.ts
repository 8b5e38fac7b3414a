/**
 * The library's page (docs/library.md), its "Use it from code" section, as a project: its code blocks read
 * as written, the package packed as a user gets it, and the set-up run in a
 * new folder. Two ways to install: `offline` (npm test) never asks a registry;
 * `registry` (npm run test:latest-typescript) runs the README's commands as
 * they are, so npm fetches the newest TypeScript.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

export const root = resolve(import.meta.dirname, '../..');
export const run = promisify(execFile);

/** The code blocks of docs/library.md's "Use it from code" section (the client first), in order, as written. */
function readmeBlocks(): { lang: string; text: string }[] {
  const readme = readFileSync(join(root, 'docs/library.md'), 'utf8');
  const from = readme.indexOf('## Use it from code');
  const section = readme.slice(from, readme.indexOf('\n## ', from + 1));
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((match) => ({ lang: match[1] as string, text: match[2] as string }));
}

/** The non-empty, non-comment lines of a shell block. */
function commandLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

const blocks = readmeBlocks();
const [setUpBlock, buildBlock] = blocks.filter((block) => block.lang === 'sh').map((block) => commandLines(block.text));
const tsconfigBlock = blocks.find((block) => block.lang === 'json')?.text;
const exampleBlock = blocks.find((block) => block.lang === 'ts')?.text;
if (!setUpBlock || !buildBlock || !tsconfigBlock || !exampleBlock) {
  throw new Error('docs/library.md "Use it from code" must hold a set-up sh block, a tsconfig.json json block, a ts example and a build-and-run sh block');
}
export const setUp: string[] = setUpBlock;
export const build: string[] = buildBlock;
export const tsconfig: string = tsconfigBlock;
export const example: string = exampleBlock;

/** The README's install lines, which the offline set-up stands in for. */
export const INSTALL_DOCEXTRACT = 'npm install docextract';
export const INSTALL_TYPESCRIPT = 'npm install --save-dev typescript @types/node@20';

/** npm with no registry to reach: a refused port, no proxy, offline. A step that needs the network fails at once. */
export const NO_REGISTRY_ENV = {
  npm_config_registry: 'http://127.0.0.1:9/',
  npm_config_offline: 'true',
  npm_config_proxy: '',
  npm_config_https_proxy: '',
  HTTP_PROXY: '',
  HTTPS_PROXY: '',
  http_proxy: '',
  https_proxy: '',
};

const QUIET_NPM = { npm_config_audit: 'false', npm_config_fund: 'false', npm_config_loglevel: 'error', npm_config_update_notifier: 'false' };

/** `npm pack` of this checkout (dist as the test run built it; --ignore-scripts packs it as it is) into `into`. */
function pack(into: string): string {
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', into], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, ...NO_REGISTRY_ENV },
  });
  return join(into, (JSON.parse(packed) as { filename: string }[])[0]?.filename ?? '');
}

/**
 * Link a package of our own lockfile-installed node_modules into the project. Only the packed
 * package's declared dependencies are linked for it, so an import of anything undeclared fails
 * here as it would for a user; what those import resolves from their real path, as Node does.
 */
function linkInstalled(project: string, name: string): void {
  const at = join(project, 'node_modules', name);
  mkdirSync(resolve(at, '..'), { recursive: true });
  symlinkSync(join(root, 'node_modules', name), at, 'dir');
}

/**
 * The README's set-up with no registry: its commands run as written, except the two installs,
 * which `npm install` cannot do offline (npm's cache keeps tarballs, not the package lists a
 * version range needs). For them: the packed tarball unpacked as node_modules/docextract with its
 * declared dependencies linked from our node_modules, and the TypeScript and @types/node our
 * lockfile pins linked with `tsc` on node_modules/.bin, as npm would put it.
 */
async function setUpOffline(parent: string, tarball: string): Promise<string> {
  const script = setUp.filter((line) => line !== INSTALL_DOCEXTRACT && line !== INSTALL_TYPESCRIPT).join('\n');
  await run('bash', ['-e', '-c', script], { cwd: parent, env: { ...process.env, ...QUIET_NPM, ...NO_REGISTRY_ENV } });
  const project = projectFolder(parent);
  const packageDir = join(project, 'node_modules/docextract');
  mkdirSync(packageDir, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1']);
  const packed = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  for (const name of Object.keys(packed.dependencies ?? {})) linkInstalled(project, name);
  for (const name of ['typescript', '@types/node']) linkInstalled(project, name);
  mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
  symlinkSync('../typescript/bin/tsc', join(project, 'node_modules/.bin/tsc'));
  return project;
}

/** The README's set-up as written, the packed file standing for `docextract` (it is not published from here): needs the registry. */
async function setUpFromRegistry(parent: string, tarball: string): Promise<string> {
  const script = setUp.map((line) => (line === INSTALL_DOCEXTRACT ? `npm install ${tarball}` : line)).join('\n');
  try {
    await run('bash', ['-e', '-c', script], { cwd: parent, env: { ...process.env, ...QUIET_NPM } });
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`The README's set-up failed; it installs the latest TypeScript, which needs the registry:\n${script}\n${stderr ?? String(error)}`);
  }
  return projectFolder(parent);
}

function projectFolder(parent: string): string {
  return join(parent, /^mkdir (\S+)/.exec(setUp[0] ?? '')?.[1] ?? '.');
}

/** A new folder set up as the README says, its tsconfig.json and example written from the README's text, plus a check of the emulator entry point. */
export async function readmeProject(install: 'offline' | 'registry'): Promise<string> {
  const parent = mkdtempSync(join(tmpdir(), 'docextract-user-'));
  const tarball = pack(parent);
  const project = install === 'offline' ? await setUpOffline(parent, tarball) : await setUpFromRegistry(parent, tarball);
  writeFileSync(join(project, 'tsconfig.json'), tsconfig);
  writeFileSync(join(project, /^\/\/ (\S+\.ts)/.exec(example)?.[1] ?? 'extract-folder.ts'), example);
  // The second entry point of the exports map: the emulator, for testing a pipeline in-process.
  writeFileSync(
    join(project, 'emulator-check.ts'),
    "import { startEmulator } from 'docextract/emulator';\nconst emu = await startEmulator({ keys: ['sk_0123456789abcdef0123456789abcdef'] });\nconsole.log(emu.url);\nawait emu.close();\n",
  );
  return project;
}

/** The version of `name` the project resolves. */
export function installedVersion(project: string, name: string): string {
  return (JSON.parse(readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Compile the project as the README does (`npx tsc`); '' when tsc said nothing (no error). */
export async function compile(project: string, extra: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const compiled = await run('npx', ['tsc', ...extra], { cwd: project, env }).catch((error: { stdout: string; stderr: string }) => ({
    stdout: `${error.stdout}${error.stderr}`,
  }));
  return compiled.stdout;
}
