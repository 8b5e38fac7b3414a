import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAST_FLAGS } from '../../helpers/emulator-run.js';
import { runCliOnFakeClock } from '../../helpers/fake-clock-cli.js';
import { corpusBytes, watchSuite, writeFile } from '../../helpers/watch-folder.js';
import { makeWorkspace, parseNdjson } from '../../helpers/workspace.js';

const watchSetup = watchSuite();

describe('docextract watch: open jobs of an earlier run', () => {
  it('count as holding job slots from the start: no upload meets too_many_open_jobs, and nothing is blamed on other clients', async () => {
    const w = await watchSetup();
    // An earlier run left 3 jobs open (--no-finalize) on the key's 5 slots, for files not in this inbox.
    const earlier = makeWorkspace({ 'a.pdf': 'pdf/pages-4.pdf', 'b.pdf': 'pdf/pages-12.pdf', 'c.pdf': 'pdf/linearized-7.pdf' });
    const first = await runCliOnFakeClock(
      ['extract', earlier.inputs, '--out', earlier.out, '--json', '--rate-limit', 'none', '--no-finalize', ...FAST_FLAGS],
      w.env,
      w.clock,
    );
    expect(first.code, first.stderr).toBe(0);
    const uploadsBefore = w.emu.counters.requestsByEndpoint.documents;

    const run = w.watch();
    await run.watching();
    const names = ['d.pdf', 'e.pdf', 'f.pdf', 'g.pdf'];
    const sources = ['pdf/pages-7.pdf', 'pdf/classic-xref-5.pdf', 'pdf/qpdf-object-streams-6.pdf', 'pdf/nested-page-tree-7.pdf'];
    names.forEach((name, i) => writeFile(join(w.inbox, name), corpusBytes(sources[i] as string)));
    await run.runUntil(() => run.lines().length === names.length, 'four lines');
    const done = await run.stop();

    expect(parseNdjson(done.stdout).map((line) => line.status)).toEqual(names.map(() => 'complete'));
    // Two slots were free: every upload was answered with a job, none with too_many_open_jobs.
    expect(w.emu.counters.requestsByEndpoint.documents - uploadsBefore, done.stderr).toBe(names.length);
    expect(done.stderr).not.toMatch(/outside this run|held by/);
    // The earlier jobs are named, with the command that finishes them.
    expect(done.stderr).toContain('from an earlier run is still open; finish it with: docextract collect');
  });
});
