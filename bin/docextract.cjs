#!/usr/bin/env node
'use strict';
// CommonJS, not a module: Node starts a CommonJS script faster (no ES module loader), and
// `--version` and `--help` answer without loading the CLI: start-up time is part of the product.
const { join } = require('node:path');

// A promise nobody settles would end the process with exit code 13 (set below until main settles)
// and not a word: say so, whatever the path that led there.
process.on('exit', (code) => {
  if (code === 13) process.stderr.write('error: docextract stopped with work still waiting on nothing (internal_error, exit 13); please report this with the command you ran\n');
});
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { readFileSync } = require('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version}\n`);
} else {
  const code = require('./help-answers.cjs').answerHelp(args, process, join(__dirname, '..', 'dist'));
  if (code === undefined) runCli();
  else process.exitCode = code;
}

async function runCli() {
  // What Node says of a top-level await that never settles, should main never settle.
  process.exitCode = 13;
  const { requireBuilt } = await import('./dist-check.js');
  requireBuilt(new URL('../dist/cli/main.js', require('node:url').pathToFileURL(__filename)), 'docextract');
  const { main } = await import('../dist/cli/main.js');
  process.exitCode = await main(process.argv);
}
