// npm run build:binary: dist-bin/docextract, one executable for Linux x64 that runs with no Node.js
// and no node_modules (a Node single-executable application: esbuild bundles the CLI into one
// CommonJS script, node --experimental-sea-config turns it into a blob, postject puts the blob into a
// copy of this Node binary). The review page's pdf.js files ship beside it in dist-bin/docextract-assets/.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { injectSeaBlob } from './inject-sea-blob.js';
import { copyPdfjsFiles } from './pdfjs-files.js';

const root = resolve(import.meta.dirname, '..');
const out = join(root, 'dist-bin');
const work = join(out, '.build');
const binary = join(out, 'docextract');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

if (process.platform !== 'linux' || process.arch !== 'x64') {
  process.stderr.write(`build:binary makes a Linux x64 executable from this Node; this is ${process.platform} ${process.arch}\n`);
  process.exit(2);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(work, { recursive: true });

// A single executable's scripts are CommonJS and may require only built-in modules. Dynamic imports
// stay lazy (esbuild runs a module's body when it is first imported). package-assets.ts reads
// import.meta.url only outside a single executable (it asks node:sea first).
const ONE_COMMONJS_FILE = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  legalComments: 'none',
  logLevel: 'warning',
  logOverride: { 'empty-import-meta': 'silent' },
};

// 0. The PDF inspection worker as one script: a single executable has no worker file beside it, so it
// starts the worker from this text (src/files/pdf-inspection-worker-source.ts).
const workerBundle = await build({ ...ONE_COMMONJS_FILE, entryPoints: [join(root, 'src/files/pdf-inspection-worker.ts')], write: false });
const workerSource = workerBundle.outputFiles[0].text;

// 1. The CLI as one script, with the worker's text and the version compiled in (the executable has no
// package.json beside it to read the version from).
const script = join(work, 'docextract.cjs');
await build({
  ...ONE_COMMONJS_FILE,
  entryPoints: [join(root, 'scripts/binary-entry.js')],
  outfile: script,
  plugins: [
    {
      name: 'inspection-worker',
      setup(plugin) {
        plugin.onLoad({ filter: /[\\/]src[\\/]files[\\/]pdf-inspection-worker-source\.ts$/ }, () => ({
          contents: `export const BUNDLED_WORKER_SOURCE = ${JSON.stringify(workerSource)};\n`,
          loader: 'ts',
        }));
      },
    },
    {
      name: 'version',
      setup(plugin) {
        plugin.onLoad({ filter: /[\\/]src[\\/]util[\\/]version\.ts$/ }, () => ({
          contents: `export const VERSION = ${JSON.stringify(version)};\nexport const USER_AGENT = \`docextract/\${VERSION}\`;\n`,
          loader: 'ts',
        }));
      },
    },
  ],
});

// 2. The blob, and 3. the executable: a copy of this Node with the blob injected.
const blob = join(work, 'docextract.blob');
const config = join(work, 'sea-config.json');
writeFileSync(config, JSON.stringify({ main: script, output: blob, disableExperimentalSEAWarning: true }));
execFileSync(process.execPath, ['--experimental-sea-config', config], { stdio: ['ignore', 'ignore', 'inherit'] });
copyFileSync(process.execPath, binary);
chmodSync(binary, 0o755);
await injectSeaBlob(binary, blob);

// 4. pdf.js for the review page (served to the browser, never run by Node): the files PdfjsAssets serves.
copyPdfjsFiles(join(out, 'docextract-assets', 'pdfjs-dist'));
// The review page's own files (src/review-page/, read from disk as page-files.ts finds them).
cpSync(join(root, 'src', 'review-page'), join(out, 'docextract-assets', 'review-page'), { recursive: true });
rmSync(work, { recursive: true, force: true });

const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
process.stdout.write(`${binary}: ${mb(statSync(binary).size)} (Node ${process.version} inside), and docextract-assets/ beside it\n`);
