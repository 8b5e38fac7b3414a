#!/usr/bin/env node
// `npm run demo`: start the bundled emulator on a free port, run a real
// `docextract extract` over the demo fixtures (images, short PDFs, long PDFs
// that take the 202 path) with the progress display, write ./demo-out, stop.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { startEmulator } = await import(join(root, 'dist/emulator/index.js'));

// A key for the local emulator only; it opens nothing anywhere else.
const apiKey = 'sk_00000000000000000000000000de3a00';
// Scaled-down windows and a little latency, so the demo takes seconds and the bars have something to show.
const rateLimit = '8/1s,60/12s';
const emulator = await startEmulator({
  keys: [apiKey],
  rateLimits: [
    { limit: 8, windowMs: 1000 },
    { limit: 60, windowMs: 12_000 },
  ],
  latencyMs: { documents: 120, process: 350, result: 60 },
});
const scratch = mkdtempSync(join(tmpdir(), 'docextract-demo-'));
process.stderr.write(`emulator listening at ${emulator.url}\n`);

// The demo folder is a mixed inbox: a document type per path, first match wins, invoice for the rest.
const modelRules = [
  'ids/passport*=passport',
  'ids/driving-licence*=drivers_license',
  'ids/**=id_card',
  'payslips/**=payslip',
  'invoices/receipt*=receipt',
  'invoices/*contract*=contract',
  'invoices/statement*=bank_statement',
  'invoice',
].flatMap((rule) => ['--model', rule]);
const args = [
  join(root, 'bin/docextract.cjs'),
  'extract',
  join(root, 'fixtures/demo'),
  '--out',
  join(root, 'demo-out'),
  '--rate-limit',
  rateLimit,
  ...modelRules,
  ...process.argv.slice(2),
];
const child = spawn(process.execPath, args, {
  stdio: 'inherit',
  env: {
    ...process.env,
    DOCEXTRACT_BASE_URL: emulator.url,
    DOCEXTRACT_API_KEY: apiKey,
    // Keep the demo's state and config away from the user's own.
    DOCEXTRACT_STATE_DIR: join(scratch, 'state'),
    DOCEXTRACT_CONFIG_DIR: join(scratch, 'config'),
  },
});
const exitCode = await new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 130 : 1))));
const { creditsCharged, requestsByEndpoint, rateLimited, finalizedJobs } = emulator.counters;
await emulator.close();
rmSync(scratch, { recursive: true, force: true });
process.stderr.write(
  `emulator saw: ${JSON.stringify(requestsByEndpoint)}; ${creditsCharged} credits charged, ${rateLimited} requests rate-limited, ${finalizedJobs} jobs finalized\n` +
    `results are in ${join(root, 'demo-out')}\n`,
);
process.exitCode = exitCode;
