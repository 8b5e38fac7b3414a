/**
 * The private copies `export`, `check` and `review` make of results in a
 * bucket (`objects/fetched-…`, `objects/tables-…` in the state folder) are
 * removed when the command ends; a kill -9 leaves them. The next such command
 * removes those of processes that are gone, and never a running one's. For
 * real: two child CLIs held at their first download by a stand-in in front of
 * moto (the exact point: their folder is made), one killed by SIGKILL.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildCli, type RunningChild } from '../helpers/child-run.js';
import { useMotoSuite } from '../helpers/moto-suite.js';
import { runCli } from '../helpers/run-cli.js';
import { makeBucket } from '../helpers/s3-objects.js';
import { startS3StandIn } from '../helpers/s3-stand-in.js';
import { waitFor } from '../helpers/wait-for.js';

const suite = useMotoSuite();

describe('private copies of results in a bucket', () => {
  it('those of a process killed with SIGKILL are removed by the next command; a running one’s are kept', async () => {
    const bucket = await makeBucket(suite.s3, 'left');
    await bucket.put('results/a.pdf.json', JSON.stringify({ document_type: 'invoice' }));
    const standIn = await startS3StandIn(suite.moto.url);
    const env = suite.env();
    const spool = join(env.DOCEXTRACT_STATE_DIR as string, 'objects');
    const copies = (): string[] => (existsSync(spool) ? readdirSync(spool).filter((name) => /^(fetched|tables)-/.test(name)) : []);
    const children: RunningChild[] = [];
    try {
      standIn.hold((req) => req.method === 'GET' && (req.url ?? '').startsWith('/left/results/'));
      /** An export held at its first download: its private folder is made by then. */
      const heldExport = async (): Promise<{ child: RunningChild; folder: string }> => {
        const before = copies();
        const child = startChildCli(['export', 's3://left/results/', '--out', mkdtempSync(join(tmpdir(), 'docextract-left-'))], {
          ...env,
          AWS_ENDPOINT_URL_S3: standIn.url,
        });
        children.push(child);
        const held = standIn.held.length;
        await waitFor(
          () => standIn.held.length > held,
          'the export to ask for its first result',
          60_000,
          () => child.stderrSoFar(),
        );
        const folder = copies().find((name) => !before.includes(name));
        expect(folder).toBeDefined();
        return { child, folder: folder as string };
      };
      // The running one first: each command removes the leftovers it finds when it starts.
      const running = await heldExport();
      const killed = await heldExport();
      killed.child.child.kill('SIGKILL');
      expect((await killed.child.done).signal).toBe('SIGKILL');
      // What a kill during `export --out s3://…` leaves too: its tables, in a folder named by the same (dead) pid.
      const tables = `tables-${killed.child.child.pid}-x1y2z3`;
      mkdirSync(join(spool, tables, 'inner'), { recursive: true });
      expect(copies().sort()).toEqual([killed.folder, tables, running.folder].sort());
      expect((statSync(join(spool, running.folder)).mode & 0o777).toString(8)).toBe('700'); // private, as the state folder

      const next = await runCli(['export', 's3://left/results/', '--out', mkdtempSync(join(tmpdir(), 'docextract-left-'))], { env });
      expect(copies(), next.stderr).toEqual([running.folder]);
    } finally {
      for (const { child } of children) child.kill('SIGKILL');
      await Promise.all(children.map((child) => child.done));
      await standIn.close();
    }
  }, 120_000);
});

describe('the private copies folder is a state-folder path', () => {
  /** A bucket with one result, and an environment whose state folder is made by the test. */
  async function resultsAndState(name: string): Promise<{ env: NodeJS.ProcessEnv; stateDir: string; out: string }> {
    const bucket = await makeBucket(suite.s3, name);
    await bucket.put('results/a.pdf.json', JSON.stringify({ document_type: 'invoice' }));
    const env = suite.env();
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    return { env, stateDir, out: mkdtempSync(join(tmpdir(), 'docextract-left-out-')) };
  }

  it('objects/ planted as a link out of the state folder is refused: nothing is copied through it', async () => {
    const { env, stateDir, out } = await resultsAndState('linked');
    const elsewhere = mkdtempSync(join(tmpdir(), 'docextract-elsewhere-'));
    symlinkSync(elsewhere, join(stateDir, 'objects'));
    await suite.moto.clearLog();
    const run = await runCli(['export', 's3://linked/results/', '--out', out], { env });
    expect(run.code).toBe(2); // state_dir_unsafe is a usage error (error-table)
    expect(run.stderr).toContain(`${join(stateDir, 'objects')} is a symbolic link`);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(suite.moto.requests).toEqual([]); // refused before anything was listed, let alone copied through it
  });

  it('a state folder others may write to is refused, as for every command that keeps state', async () => {
    const { env, stateDir } = await resultsAndState('open');
    chmodSync(stateDir, 0o777);
    await suite.moto.clearLog();
    const run = await runCli(['check', 's3://open/results/'], { env });
    expect(run.code).toBe(2); // state_dir_unsafe is a usage error (error-table)
    expect(run.stderr).toContain(`The state folder ${stateDir} is not private`);
    expect(existsSync(join(stateDir, 'objects'))).toBe(false);
    expect(suite.moto.requests).toEqual([]);
  });
});
