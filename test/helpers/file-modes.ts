import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const DIST = resolve(import.meta.dirname, '../../dist');

/** The capabilities that let root read and search whatever the file modes say (capabilities(7)). */
const MODE_BYPASSING_CAPABILITIES = '-dac_override,-dac_read_search';

/**
 * `command args` rewritten so that file modes bind it. Root ignores a chmod 000
 * (CI runs as root), so a permission test run as is would prove nothing there.
 * As root: through `setpriv` (util-linux) with the two capabilities that bypass
 * modes dropped from its bounding set, so the child, still uid 0, gets EACCES
 * like anyone else. Dropping them, rather than switching to `nobody`, keeps the
 * checkout and node readable wherever they live (a clone under /root is 0700).
 * As anyone else: unchanged.
 */
export function honouringFileModes(command: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [command, args];
  return ['setpriv', [`--bounding-set=${MODE_BYPASSING_CAPABILITIES}`, command, ...args]];
}

const CALL_EXPORT = `
const [url, name, json] = process.argv.slice(1);
const result = await (await import(url))[name](...JSON.parse(json));
// discoverInputs' list is read in slices (it may be on disk): read it whole here, as test/helpers/discovered.ts does.
const listed = typeof result?.inputs?.slices === 'function' ? { ...result, inputs: [...result.inputs.slices(Number.MAX_SAFE_INTEGER)].flat() } : result;
process.stdout.write(JSON.stringify(listed));
`;

/**
 * Calls `exportName(...args)` of the built module `dist/<modulePath>` in a child
 * process that file modes bind, and returns its result (through JSON).
 * dist/ is built by test/global-setup.ts.
 */
export async function callBuiltHonouringFileModes<T>(modulePath: string, exportName: string, args: unknown[]): Promise<T> {
  const url = pathToFileURL(resolve(DIST, modulePath)).href;
  const [command, commandArgs] = honouringFileModes(process.execPath, ['--input-type=module', '-e', CALL_EXPORT, url, exportName, JSON.stringify(args)]);
  const { stdout } = await promisify(execFile)(command, commandArgs, { encoding: 'utf8' });
  return JSON.parse(stdout) as T;
}
