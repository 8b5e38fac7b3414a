// Peak RSS of a program that imports the package and extracts a folder of tiny PNGs through
// extractDocuments (issue 42: the library plans as the CLI does, a slice at a time). The emulator runs
// in this process with no limits; the program runs as a child under /usr/bin/time -f %M (its maxrss).
// Usage (after npm run build): node scripts/bench/library-scale.js [files, default 100000]
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeTinyPngs } from './files.js';
import { apiKey, scratch } from './context.js';
import { startTrackedEmulator, cleanUp } from './procs.js';

const FILES = Number(process.argv[2] ?? 100_000);
const dir = scratch('library-scale');
const input = join(dir, 'in');
writeTinyPngs(input, FILES, { prefix: 'lib', perFolder: Math.min(1_000, FILES) });
const emulator = await startTrackedEmulator({ keys: [apiKey], rateLimits: [] });
try {
  const child = fileURLToPath(new URL('./library-child.js', import.meta.url));
  const started = Date.now();
  const time = existsSync('/usr/bin/time') ? ['/usr/bin/time', '-f', 'maxrss_kib=%M'] : [];
  // Asynchronous: the emulator answers from this process while the child runs.
  const { stdout, stderr } = await promisify(execFile)(
    time[0] ?? process.execPath,
    [...time.slice(1), ...(time.length ? [process.execPath] : []), child, emulator.url, input, dir],
    { encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  const out = `${stdout.trim()} ${stderr.trim().split('\n').pop()}`;
  console.log(`${FILES} files: ${out} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
} finally {
  await cleanUp();
}
