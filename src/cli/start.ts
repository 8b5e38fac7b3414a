import { main } from './main.js';

/** Node's exit code for a process whose work ran out while a promise was still awaited (an unsettled top-level await). */
const UNSETTLED_EXIT = 13;

/**
 * The one start of the CLI as a process, for `bin/docextract.cjs` (after its
 * answers that need no CLI: --version and the rendered help) and for the
 * single executable alike: run `main`, take its exit code, and say so when
 * `main` never settles. A promise nobody settles ends the process with no
 * word: Node runs out of work and exits; `beforeExit` comes only then (never
 * on process.exit), so an unsettled `main` is reported as exit 13, the code
 * Node gives an unsettled top-level await, with one line on stderr.
 */
export async function startCli(argv: string[] = process.argv): Promise<void> {
  // The AWS SDK (loaded only for s3://) warns on Node 20 that its releases after January 2027 will need Node 22.
  // The version pinned here supports Node 20, and a user of the CLI can do nothing about the SDK's own future:
  // the notice is the package's concern (docs/dependencies.md), not a line on every s3:// run's stderr.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  let settled = false;
  process.once('beforeExit', () => {
    if (!settled) process.exitCode = UNSETTLED_EXIT;
  });
  process.on('exit', (code) => {
    if (code === UNSETTLED_EXIT)
      process.stderr.write(
        `error: docextract stopped with work still waiting on nothing (internal_error, exit ${UNSETTLED_EXIT}); please report this with the command you ran\n`,
      );
  });
  process.exitCode = await main(argv);
  settled = true;
}
