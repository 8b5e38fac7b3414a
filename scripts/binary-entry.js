// The single executable's main script (npm run build:binary bundles it with everything it imports):
// what bin/docextract.js does, without top-level await, which a CommonJS bundle cannot hold.
import { main } from '../src/cli/main.js';

process.on('exit', (code) => {
  if (code === 13) process.stderr.write('error: docextract stopped with work still waiting on nothing (internal_error, exit 13); please report this with the command you ran\n');
});
main(process.argv).then((code) => {
  process.exitCode = code;
});
