#!/usr/bin/env node
// A promise nobody settles would end the process with Node's exit code 13 ("unsettled top-level
// await") and not a word: say so, whatever the path that led there.
process.on('exit', (code) => {
  if (code === 13) process.stderr.write('error: docextract stopped with work still waiting on nothing (internal_error, exit 13); please report this with the command you ran\n');
});
// `docextract --version` answers without loading the CLI: start-up time is part of the product.
if (process.argv.length === 3 && (process.argv[2] === '--version' || process.argv[2] === '-V')) {
  const { readFileSync } = await import('node:fs');
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  const { requireBuilt } = await import('./dist-check.js');
  requireBuilt(new URL('../dist/cli/main.js', import.meta.url), 'docextract');
  const { main } = await import('../dist/cli/main.js');
  process.exitCode = await main(process.argv);
}
