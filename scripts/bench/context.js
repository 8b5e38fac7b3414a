// What every bench section shares: paths, the emulator key, the CLI's environment, the machine.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { cpus, freemem, loadavg, release, totalmem, type } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
export const cli = join(root, 'bin/docextract.cjs');
export const tmpRoot = join(root, 'bench/tmp');
// A key for the local emulator only; it opens nothing anywhere else.
export const apiKey = 'sk_00000000000000000000000000be4c00';

/** Imports a module from dist/ (built by the bench before any section runs). */
export function fromDist(path) {
  return import(pathToFileURL(join(root, 'dist', path)).href);
}

/** A fresh, empty scratch folder bench/tmp/<name>. */
export function scratch(name) {
  const dir = join(tmpRoot, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The CLI's environment against `emulator`, with state and config in `dir` (never the user's own). */
export function cliEnv(emulator, dir) {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('DOCEXTRACT_')) delete env[name];
  return {
    ...env,
    CI: '1',
    NO_COLOR: '1',
    DOCEXTRACT_BASE_URL: emulator?.url ?? 'http://127.0.0.1:9',
    DOCEXTRACT_API_KEY: apiKey,
    DOCEXTRACT_STATE_DIR: join(dir, 'state'),
    DOCEXTRACT_CONFIG_DIR: join(dir, 'config'),
  };
}

export function onPath(command) {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function machine() {
  const cpuList = cpus();
  return {
    cores: cpuList.length,
    cpuModel: cpuList[0]?.model ?? 'unknown',
    totalMemoryMiB: Math.round(totalmem() / 2 ** 20),
    freeMemoryMiBAtStart: Math.round(freemem() / 2 ** 20),
    // Other work on the machine skews every figure: compare with `cores`.
    loadAverageAtStart: loadAverage(),
    node: process.version,
    os: `${type()} ${release()} ${process.arch}${distro()}`,
  };
}

export function loadAverage() {
  return loadavg().map((v) => Number(v.toFixed(2)));
}

function distro() {
  try {
    const text = execFileSync('sh', ['-c', '. /etc/os-release && echo "$PRETTY_NAME"'], { encoding: 'utf8' }).trim();
    return text ? ` (${text})` : '';
  } catch {
    return '';
  }
}

export function gitCommit() {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'bin'], { cwd: root, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${commit} (src/ or bin/ modified)` : commit;
  } catch {
    return 'unknown';
  }
}
