#!/usr/bin/env node
'use strict';
// CommonJS, not a module: Node starts a CommonJS script faster (no ES module loader), and
// `--version` and `--help` answer without loading the CLI: start-up time is part of the product.
const { join } = require('node:path');

// A promise nobody settles would end the process with exit code 13 (as Node ends an unsettled
// top-level await; see runCli) and not a word: say so, whatever the path that led there.
process.on('exit', (code) => {
  if (code === 13) process.stderr.write('error: docextract stopped with work still waiting on nothing (internal_error, exit 13); please report this with the command you ran\n');
});
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

async function runCli() {
  // Nothing left to run and main not settled: what Node says of an unsettled top-level await
  // (beforeExit comes only when the work runs out, never on process.exit).
  let settled = false;
  process.once('beforeExit', () => {
    if (!settled) process.exitCode = 13;
  });
  const { requireBuilt } = await import('./dist-check.js');
  requireBuilt(new URL('../dist/cli/main.js', require('node:url').pathToFileURL(__filename)), 'docextract');
  const { main } = await import('../dist/cli/main.js');
  process.exitCode = await main(process.argv);
  settled = true;
}
