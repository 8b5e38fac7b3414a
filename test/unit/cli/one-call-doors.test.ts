/**
 * The CLI's commands and MCP's tools are built on the client alone (issue 53):
 * each reads its flags or arguments, makes one call on a `DocExtract`, and
 * turns what it gives into words or structured content. So none of them
 * makes a service client of its own (`ctx.client(`), nor names a runner the
 * client's methods are the one call over: the same work reached beside the
 * client would miss what the client adds (the refusal of a key in clear
 * text, the account, the windows, the state folder's one gate).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = resolve(import.meta.dirname, '../../../src');

/** The runners behind the client's methods, by the public entry (src/library/*.ts) that exports each. */
const RUNNERS: Record<string, readonly string[]> = {
  'extract-documents.ts': ['extractDocuments'],
  'jobs.ts': ['listJobs', 'stateLockHolder', 'readRunningCommands', 'refreshOpenJobs', 'processChunkOnEngine'],
  'usage.ts': ['readUsage'],
  'export.ts': ['exportResults'],
  // A result read back (MCP's result tool) is `dx.result`: the corrections, the parts and the verdict in one place.
  'check.ts': ['checkResults', 'readResultFile', 'dataToCheck', 'readReview'],
  'review.ts': ['startReview'],
  'collect-job.ts': ['collectJobRun'],
  'watch-run.ts': ['watchFolderRun'],
  'one-client-run.ts': ['runDocuments'],
};
const runners = Object.values(RUNNERS).flat();

/** The front doors' files that meet the engine: the CLI's commands and every MCP module. */
const doors = [
  ...readdirSync(join(src, 'cli/run')).map((name) => join('cli/run', name)),
  ...readdirSync(join(src, 'mcp'), { recursive: true, encoding: 'utf8' }).map((name) => join('mcp', name)),
].filter((path) => path.endsWith('.ts'));

/** What in `text` reaches the engine beside the client: a service client of the command's own, or a runner named. */
function besideTheClient(text: string): string[] {
  const found: string[] = [];
  if (/\bctx\.client\(/.test(text)) found.push('ctx.client(');
  if (/\bnew ApiClient\(/.test(text)) found.push('new ApiClient(');
  for (const name of runners) if (new RegExp(`\\b${name}\\b`).test(text)) found.push(name);
  return found;
}

describe('a front door makes one call on the client', () => {
  it('the list of runners is true: each is exported by the library entry it is listed under', () => {
    for (const [entry, names] of Object.entries(RUNNERS)) {
      const text = readFileSync(join(src, 'library', entry), 'utf8');
      for (const name of names) expect({ entry, name, exported: new RegExp(`export[^;]*\\b${name}\\b`).test(text) }).toEqual({ entry, name, exported: true });
    }
  });

  it('finds what it looks for (the check itself is not blind)', () => {
    expect(besideTheClient("const client = await ctx.client();\nconst { listJobs } = await import('../../library/jobs.js');")).toEqual([
      'ctx.client(',
      'listJobs',
    ]);
    expect(besideTheClient('const list = await dx.models();')).toEqual([]);
  });

  it('no command of src/cli/run and no module of src/mcp makes its own service client or names a runner beside the client', () => {
    expect(doors.length).toBeGreaterThan(20);
    const offending = doors.map((path) => ({ path, found: besideTheClient(readFileSync(join(src, path), 'utf8')) })).filter(({ found }) => found.length > 0);
    expect(offending).toEqual([]);
  });
});
