// node scripts/bench/install-size.js [--no-build]: what `npm i docextract` puts in a new project (issue 53:
// at most 100 MB of node_modules). Packs this checkout (prepack builds it; --no-build packs the dist/ there is),
// installs the package into a new project from npm's cache (--prefer-offline: the network only for what the
// cache lacks), and prints the size of node_modules (du, as the issue measured it), its packages and the
// largest. Exits 1 past the limit. Not in npm test: an install takes 30 to 60 s.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const LIMIT_MB = 100;
const root = resolve(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'docextract-install-size-'));
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', work, ...(process.argv.includes('--no-build') ? ['--ignore-scripts'] : [])], root))[0];
  const project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), '{ "name": "install-size", "version": "1.0.0", "private": true }\n');
  npm(['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, packed.filename)], project);
  const modules = join(project, 'node_modules');
  const megabytes = (path) => Number(execFileSync('du', ['-sm', path], { encoding: 'utf8' }).split('\t')[0]);
  const total = megabytes(modules);
  const packages = npm(['ls', '--all', '--parseable'], project).trim().split('\n').length - 1;
  const folders = readdirSync(modules).flatMap((name) =>
    name.startsWith('@') ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : name.startsWith('.') ? [] : [name],
  );
  const largest = folders
    .map((name) => [name, megabytes(join(modules, name))])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8);
  process.stdout.write(`package: ${packed.filename}, ${(packed.size / 1e6).toFixed(1)} MB packed, ${(packed.unpackedSize / 1e6).toFixed(1)} MB unpacked\n`);
  process.stdout.write(`node_modules: ${total} MB (du -sm), ${packages} packages; limit ${LIMIT_MB} MB\n`);
  for (const [name, mb] of largest) process.stdout.write(`  ${String(mb).padStart(4)} MB  ${name}\n`);
  if (total > LIMIT_MB) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
