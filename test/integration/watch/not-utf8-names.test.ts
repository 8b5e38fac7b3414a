import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { corpusBytes, watchSuite } from '../../helpers/watch-folder.js';

const watchSetup = watchSuite();

/** `folder`/`name`, where `name` is bytes (a Latin-1 é, 0xe9, is no UTF-8). */
const rawPath = (folder: string, ...name: (string | number)[]): Buffer =>
  Buffer.concat([Buffer.from(`${folder}/`), ...name.map((piece) => (typeof piece === 'number' ? Buffer.from([piece]) : Buffer.from(piece)))]);

/** The watch's default settle time. */
const SETTLE_MS = 2_000;

describe('docextract watch: a name that is not UTF-8', () => {
  it('reports a file dropped under such a name once it has settled, escaped and with name_not_utf8, and a folder so named, and sends nothing', async () => {
    const w = await watchSetup();
    const run = w.watch();
    await run.watching();
    const droppedAt = w.clock.now();
    writeFileSync(rawPath(w.inbox, 'caf', 0xe9, '.pdf'), corpusBytes('pdf/pages-1.pdf'));
    mkdirSync(rawPath(w.inbox, 'scans-', 0xff));
    writeFileSync(rawPath(w.inbox, 'scans-', 0xff, '/inside.pdf'), corpusBytes('pdf/pages-2.pdf'));
    const reported = (): Record<string, unknown> | undefined =>
      run.lines().find((line) => (line.error as { code?: string } | undefined)?.code === 'name_not_utf8');
    await run.runUntil(() => reported() !== undefined, 'the file reported');
    // Within its settle time: found by the folder's change event, not by the pass over the folder 30 s on.
    expect(w.clock.now() - droppedAt).toBeLessThanOrEqual(SETTLE_MS);
    // Reported once: the passes over the folder that follow find it again, unchanged.
    await run.quiet();
    await w.clock.advance(31_000);
    await run.quiet();
    const done = await run.stop();
    expect(run.lines().filter((line) => line.error)).toHaveLength(1);
    expect(reported()).toMatchObject({
      file: expect.stringContaining('caf\uFFFD.pdf'),
      error: { code: 'name_not_utf8', message: expect.stringContaining(`caf\\xe9.pdf: the file's name is not valid UTF-8`) },
    });
    expect(done.stderr).toContain(`scans-\\xff: the folder's name is not valid UTF-8, which no result can be named after; nothing in it is taken.`);
    expect(done.stderr).toContain('(name_not_utf8)');
    expect(w.uploads).toEqual([]);
  });
});
