#!/usr/bin/env node
// `npm test` builds dist/ once, as its own step, and each vitest run's global setup (test/global-setup.ts)
// calls the same function, which builds only when dist/ is missing or was built from other sources.
// "Other" is decided by the CONTENT of the build's inputs (src/, the tsconfigs, the build scripts, the
// compiler's version), never by file times: a checkout, a copy or a `touch` changes times, not what
// would be built. The hash of the inputs the last build used is kept beside dist/ (not in it, so that
// `npm pack` does not ship it) and written only after a build succeeded.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const defaultRoot = dirname(dirname(fileURLToPath(import.meta.url)));

/** The files whose content decides what `npm run build` writes into dist/. */
function buildInputs(root) {
  const files = [
    'package.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'scripts/build-help-texts.js',
    'scripts/copy-review-page.js',
    'scripts/pdfjs-files.js',
    'node_modules/pdfjs-dist/package.json',
    'node_modules/typescript/package.json',
  ];
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files.push(path);
    }
  };
  walk('src');
  return files.sort();
}

/** sha256 over each input's path and content. */
export function sourceHash(root = defaultRoot) {
  const hash = createHash('sha256');
  for (const file of buildInputs(root)) {
    const content = existsSync(join(root, file)) ? readFileSync(join(root, file)) : Buffer.alloc(0);
    hash.update(`${file}\0${content.length}\0`);
    hash.update(content);
  }
  return hash.digest('hex');
}

export const stampFile = (root = defaultRoot) => join(root, '.dist-source-hash');

/** Whether dist/ was built from sources whose hash is `hash`. */
function distBuiltFrom(root, hash) {
  const stamp = stampFile(root);
  return (
    existsSync(join(root, 'dist/cli/main.js')) &&
    existsSync(join(root, 'dist/cli/help-texts.json')) &&
    existsSync(stamp) &&
    readFileSync(stamp, 'utf8').trim() === hash
  );
}

/** `npm run build`'s three steps (its type check left to `npm run typecheck`), when dist/ is missing or stale. Returns whether it built. */
export function buildWhenStale(root = defaultRoot, log = (line) => process.stderr.write(`${line}\n`)) {
  const hash = sourceHash(root);
  const stamp = stampFile(root);
  if (distBuiltFrom(root, hash)) {
    log(`dist/ is current (sources ${hash.slice(0, 12)}): not rebuilt`);
    return false;
  }
  log(`building dist/ (sources ${hash.slice(0, 12)})`);
  // A build that fails half-way leaves no stamp, so the next run builds again. dist/ is emptied first:
  // tsc never deletes, and the output of a module since moved or removed would stay, be imported, be packed.
  rmSync(stamp, { force: true });
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const node = (args) => execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  // --noCheck: the same output as `npm run build` without checking the types (a third less CPU), which
  // `npm test` checks beside the build (`npm run typecheck`, src/ included) and `npm run build` still does.
  node([join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--noCheck']);
  node([join(root, 'scripts/copy-review-page.js')]);
  node([join(root, 'scripts/build-help-texts.js')]);
  writeFileSync(stamp, `${hash}\n`);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) buildWhenStale();
