#!/usr/bin/env node
'use strict';
// CommonJS, not a module: Node starts a CommonJS script faster (no ES module loader), and
// `--version` and `--help` answer without loading the CLI: start-up time is part of the product.
const { join } = require('node:path');

const args = process.argv.slice(2);
process.stdout.on('error', quietOnClosedPipe);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { readFileSync } = require('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version}\n`);
} else {
  const code = require('./help-answers.cjs').answerHelp(args, process, join(__dirname, '..', 'dist'));
  if (code === undefined) {
    process.stdout.off('error', quietOnClosedPipe); // the CLI has its own (cli/io.ts)
    runCli();
  } else {
    process.exitCode = code;
  }
}

/** `docextract --help | head` may close our stdout before all is written: the reader's choice, as in the CLI. */
function quietOnClosedPipe(error) {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
}

// Everything else starts where the single executable starts: src/cli/start.ts (type-checked), which
// also says so when the CLI's main never settles.
async function runCli() {
  const { requireBuilt } = await import('./dist-check.js');
  requireBuilt(new URL('../dist/cli/start.js', require('node:url').pathToFileURL(__filename)), 'docextract');
  const { startCli } = await import('../dist/cli/start.js');
  await startCli(process.argv);
}
