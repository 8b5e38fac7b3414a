// The single executable's main script (npm run build:binary bundles it with everything it imports):
// what bin/docextract.cjs does when it runs the CLI. --help goes through commander here, as before:
// the help texts bin/ answers from (dist/cli/help-texts.json) are not in the bundle.
import { main } from '../src/cli/main.js';

process.on('exit', (code) => {
  if (code === 13) process.stderr.write('error: docextract stopped with work still waiting on nothing (internal_error, exit 13); please report this with the command you ran\n');
});
main(process.argv).then((code) => {
  process.exitCode = code;
});
