// The single executable's main script (npm run build:binary bundles it with everything it imports):
// the CLI's one start (src/cli/start.ts), as bin/docextract.cjs runs it. --help goes through commander
// here: the help texts bin/ answers from (dist/cli/help-texts.json) are not in the bundle.
import { startCli } from '../src/cli/start.js';

void startCli(process.argv);
