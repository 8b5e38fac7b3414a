import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusBytes, distinctJpeg, watchSuite, writeFile } from '../../helpers/watch-folder.js';
import { expectCompleteResult, parseNdjson } from '../../helpers/workspace.js';

const watchSetup = watchSuite();

describe('docextract watch --move-done / --move-failed', () => {
  it('moves each source, mirroring its path, only once its result is durable; a final failure goes to --move-failed', async () => {
    const w = await watchSetup();
    const done = join(w.dir, 'done');
    const failed = join(w.dir, 'failed');
    const run = w.watch(['--move-done', done, '--move-failed', failed]);
    await run.watching();
    writeFile(join(w.inbox, 'long/four.pdf'), corpusBytes('pdf/pages-4.pdf'));
    writeFile(join(w.inbox, 'scans/r.jpg'), distinctJpeg('r'));
    writeFile(join(w.inbox, 'not-really.pdf'), corpusBytes('broken/not-a-pdf.pdf'));
    const movedTooEarly: string[] = [];
    await run.runUntil(() => {
      // Between any two steps of the run: a source gone from the inbox has its complete result on disk.
      for (const name of ['long/four.pdf', 'scans/r.jpg']) if (!existsSync(join(w.inbox, name)) && !w.resultExists(name)) movedTooEarly.push(name);
      return run.lines().length === 3 && existsSync(join(done, 'long/four.pdf')) && existsSync(join(failed, 'not-really.pdf'));
    }, 'three lines and the moves');
    const stopped = await run.stop();

    expect(stopped.code).toBe(130);
    expect(movedTooEarly).toEqual([]);
    expectCompleteResult(join(w.out, 'long/four.pdf.json'), join(done, 'long/four.pdf'), 4);
    expectCompleteResult(join(w.out, 'scans/r.jpg.json'), join(done, 'scans/r.jpg'), 1);
    // Each result names where its source went (from its own folder), so that review and check find it there.
    for (const name of ['long/four.pdf', 'scans/r.jpg']) {
      const recorded = (JSON.parse(readFileSync(join(w.out, `${name}.json`), 'utf8')) as { source: { path: string } }).source.path;
      expect(recorded, name).toBe(relative(dirname(join(w.out, name)), join(done, name)));
    }
    expect(existsSync(join(failed, 'not-really.pdf'))).toBe(true);
    for (const name of ['long/four.pdf', 'scans/r.jpg', 'not-really.pdf']) expect(existsSync(join(w.inbox, name)), name).toBe(false);
    expect(parseNdjson(stopped.stdout).find((line) => String(line.file).endsWith('not-really.pdf'))).toMatchObject({
      status: 'failed',
      error: { code: 'invalid_file_type' },
    });
  });

  it('after a crash between the write and the move, the next start reuses the result on disk (no request) and then moves the source', async () => {
    const w = await watchSetup();
    writeFile(join(w.inbox, 'a.pdf'), corpusBytes('pdf/pages-2.pdf'));
    writeFile(join(w.inbox, 'sub/b.jpg'), distinctJpeg('b'));
    writeFile(join(w.inbox, 'sub/long.pdf'), corpusBytes('pdf/pages-4.pdf'));
    // The state a crash between the write and the move leaves: results written, sources still in the inbox.
    // (A --move-done that is a file is refused up front now, so the first run simply does not move.)
    const done = join(w.dir, 'done');
    const first = w.watch();
    await first.runUntil(() => first.lines().length === 3, 'three results');
    await first.stop();
    for (const name of ['a.pdf', 'sub/b.jpg', 'sub/long.pdf']) expect(existsSync(join(w.inbox, name)), name).toBe(true);
    const counted = (): number[] => [
      w.emu.counters.requestsByEndpoint.documents,
      w.emu.counters.requestsByEndpoint.process,
      w.emu.counters.requestsByEndpoint.result,
    ];
    const requests = counted();

    const second = w.watch(['--move-done', done]);
    await second.runUntil(() => ['a.pdf', 'sub/b.jpg', 'sub/long.pdf'].every((name) => existsSync(join(done, name))), 'the three moves');
    const stopped = await second.stop();

    expect(stopped.code).toBe(130);
    expect(counted()).toEqual(requests); // the free models check aside, nothing was sent
    const lines = parseNdjson(stopped.stdout);
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatchObject({ status: 'complete', credits: 0, reused: expect.any(String) });
    for (const name of ['a.pdf', 'sub/b.jpg', 'sub/long.pdf']) expect(existsSync(join(w.inbox, name)), name).toBe(false);
    expectCompleteResult(join(w.out, 'sub/long.pdf.json'), join(done, 'sub/long.pdf'), 4);
  });

  // Another user is a folder's owner set with chown: as root only (here and in CI).
  it.runIf(process.getuid?.() === 0)(
    "in a shared 1777 inbox, a file below another user's folder is extracted but not moved: a warning names it, the folder and why (move_unsafe); the user's own file moves (issue 51)",
    async () => {
      const w = await watchSetup();
      chmodSync(w.inbox, 0o1777);
      const done = join(w.dir, 'done');
      const run = w.watch(['--move-done', done]);
      await run.watching();
      const theirs = join(w.inbox, 'sub');
      mkdirSync(theirs);
      chownSync(theirs, 4242, 4242);
      writeFile(join(theirs, 'p.jpg'), distinctJpeg('p'));
      writeFile(join(w.inbox, 'mine.jpg'), distinctJpeg('m'));
      await run.runUntil(
        () => run.lines().length === 2 && existsSync(join(done, 'mine.jpg')) && run.stderr().includes('move_unsafe'),
        'two lines, one move and one refusal',
      );
      const stopped = await run.stop();

      expect(stopped.code).toBe(130);
      expect(existsSync(join(theirs, 'p.jpg'))).toBe(true);
      expect(existsSync(join(done, 'sub'))).toBe(false);
      expect(w.resultExists('sub/p.jpg')).toBe(true);
      expect(stopped.stderr).toMatch(
        new RegExp(
          `warning: \\S*sub/p\\.jpg: not moved to ${done}: ${theirs}: it belongs to another user \\(uid 4242\\), in ${w.inbox} which others may write to \\(mode 1777\\)`,
        ),
      );
    },
  );

  it('without the flags, sources stay where they are', async () => {
    const w = await watchSetup();
    writeFile(join(w.inbox, 'a.pdf'), corpusBytes('pdf/pages-1.pdf'));
    const run = w.watch();
    await run.runUntil(() => run.lines().length === 1, 'one line');
    await run.stop();
    expect(existsSync(join(w.inbox, 'a.pdf'))).toBe(true);
  });
});
