import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusBytes, watchSuite, writeFile } from '../../helpers/watch-folder.js';
import { runCli } from '../../helpers/run-cli.js';

const watchSetup = watchSuite();

describe('docextract watch: usage', () => {
  it('records what a watch spent when it stops, for docextract usage', async () => {
    const w = await watchSetup();
    const run = w.watch();
    await run.watching();
    writeFile(join(w.inbox, 'scan.pdf'), corpusBytes('pdf/pages-12.pdf'));
    writeFile(join(w.inbox, 'two.pdf'), corpusBytes('pdf/pages-2.pdf'));
    await run.runUntil(() => run.lines().filter((line) => line.status === 'complete').length === 2, 'both complete');
    const done = await run.stop();
    expect(done.code).toBe(130);

    // The watch ran on a fake clock in January 2026: ask from before it.
    const usage = await runCli(['usage', '--json', '--since', '2026-01-01', '--by', 'command'], { env: w.env, clock: w.clock });
    expect(usage.code, usage.stderr).toBe(0);
    const report = JSON.parse(usage.stdout) as {
      total: { credits: number; documents: number };
      rows: { key: string; credits: number }[];
      charges: { jobs: number };
      mismatches: unknown[];
    };
    expect(report.total).toMatchObject({ credits: 14, documents: 2 });
    expect(report.rows).toEqual([expect.objectContaining({ key: 'watch', credits: 14 })]);
    expect(report.charges.jobs).toBe(1);
    expect(report.mismatches).toEqual([]);
  });
});
