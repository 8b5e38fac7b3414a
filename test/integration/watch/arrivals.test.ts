import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusBytes, distinctJpeg, watchSuite, writeFile, writeInPieces } from '../../helpers/watch-folder.js';
import { expectNoContentUploadedTwice } from '../../helpers/emulator-run.js';
import { expectCompleteResult, parseNdjson, sha256Of } from '../../helpers/workspace.js';

const watchSetup = watchSuite();

describe('docextract watch: files arriving', () => {
  it('takes a file written slowly in pieces only once it is complete, 2 s after its last piece, and sends it once', async () => {
    const w = await watchSetup();
    const run = w.watch();
    await run.watching();
    const scan = join(w.inbox, 'scan.pdf');
    const bytes = corpusBytes('pdf/pages-12.pdf');
    // A duplex scanner: a piece, a pause of 1.5 s (shorter than the 2 s settle time), the next piece...
    await writeInPieces(scan, bytes, 6, async () => {
      await run.quiet();
      await w.clock.advance(1500);
    });
    const lastPieceAt = w.clock.now() - 1500;
    await run.runUntil(() => run.lines().some((line) => line.status === 'complete'), 'scan.pdf complete');
    const done = await run.stop();

    expect(done.code).toBe(130);
    const sha = sha256Of(scan);
    expect(w.uploads.map((upload) => upload.sha256)).toEqual([sha]); // no piece of it was ever sent
    expect((w.uploads[0]?.at ?? 0) - lastPieceAt).toBeGreaterThanOrEqual(2000);
    expect(parseNdjson(done.stdout)).toEqual([expect.objectContaining({ file: expect.stringContaining('scan.pdf'), status: 'complete', pages: 12 })]);
    expectCompleteResult(join(w.out, 'scan.pdf.json'), scan, 12);
  });

  it('a burst of 500 files: each extracted exactly once, one NDJSON line each', async () => {
    const w = await watchSetup();
    const run = w.watch([], { realTimeoutMs: 290_000 });
    await run.watching();
    const names = Array.from({ length: 500 }, (_, i) => `burst/${String(i).padStart(3, '0')}.jpg`);
    for (const name of names) writeFile(join(w.inbox, name), distinctJpeg(name));
    await run.runUntil(() => run.lines().length === 500, '500 lines');
    expect(names.every((name) => w.resultExists(name))).toBe(true);
    const done = await run.stop();

    expect(done.code).toBe(130);
    const lines = parseNdjson(done.stdout);
    expect(lines).toHaveLength(500);
    expect(lines.map((line) => line.status)).toEqual(names.map(() => 'complete'));
    expect(new Set(lines.map((line) => line.file)).size).toBe(500);
    expect(w.emu.counters.requestsByEndpoint.documents).toBe(500);
    expectNoContentUploadedTwice(w.emu, 500);
    // 500 results, each fsynced twice: on a busy machine this takes a while. The wait is on the run's
    // own output, so the bound is only what a failing run is given: beside 3 busy loops (load 10) 500
    // lines took longer than 110 s.
  }, 300_000);

  it('a file renamed into the folder, and a temporary download renamed to its final name, are each taken once under the final name', async () => {
    const w = await watchSetup();
    const run = w.watch();
    await run.watching();
    const outside = join(w.dir, 'elsewhere', 'moved.pdf');
    writeFile(outside, corpusBytes('pdf/pages-2.pdf'));
    renameSync(outside, join(w.inbox, 'moved.pdf'));
    // A browser writes report.pdf.crdownload slowly, then renames it.
    const partial = join(w.inbox, 'report.pdf.crdownload');
    await writeInPieces(partial, corpusBytes('pdf/pages-4.pdf'), 3, async () => {
      await run.quiet();
      await w.clock.advance(3000); // longer than the settle time: a temporary name must be ignored, not merely slow
    });
    renameSync(partial, join(w.inbox, 'report.pdf'));
    await run.runUntil(() => run.lines().length === 2, 'both lines');
    const done = await run.stop();

    const lines = parseNdjson(done.stdout);
    expect(lines.map((line) => [line.file, line.status]).sort()).toEqual([
      [expect.stringContaining('moved.pdf'), 'complete'],
      [expect.stringContaining('report.pdf'), 'complete'],
    ]);
    expect(lines.some((line) => String(line.file).includes('crdownload'))).toBe(false);
    expect(w.uploads.map((upload) => upload.sha256).sort()).toEqual([sha256Of(join(w.inbox, 'moved.pdf')), sha256Of(join(w.inbox, 'report.pdf'))].sort());
  });

  it('never takes temporary, hidden or non-document files', async () => {
    const w = await watchSetup();
    const run = w.watch();
    await run.watching();
    const pdf = corpusBytes('pdf/pages-1.pdf');
    for (const name of [
      '.hidden.pdf',
      '~$letter.pdf',
      'a.pdf.part',
      'b.pdf.tmp',
      'c.pdf.crdownload',
      'Thumbs.db',
      '.DS_Store',
      '.git/objects/x.pdf',
      'notes.txt',
    ]) {
      writeFile(join(w.inbox, name), name === 'notes.txt' ? Buffer.from('hello') : pdf);
    }
    writeFile(join(w.inbox, 'real.pdf'), pdf);
    await run.runUntil(() => run.lines().length === 1, 'the line of real.pdf');
    // Give the ignored files every chance: far past their settle time.
    await w.clock.advance(60_000);
    await run.quiet();
    const done = await run.stop();

    expect(parseNdjson(done.stdout).map((line) => line.file)).toEqual([expect.stringContaining('real.pdf')]);
    expect(w.emu.counters.requestsByEndpoint.documents).toBe(1);
  });

  it('restarted after more files arrived while it was down, takes them and sends nothing again for the rest', async () => {
    const w = await watchSetup();
    writeFile(join(w.inbox, 'a.pdf'), corpusBytes('pdf/pages-2.pdf'));
    writeFile(join(w.inbox, 'b.jpg'), distinctJpeg('b'));
    const first = w.watch();
    await first.runUntil(() => first.lines().length === 2, 'the first two lines');
    expect((await first.stop()).code).toBe(130);
    const before = { ...w.emu.counters.requestsByEndpoint };

    writeFile(join(w.inbox, 'c.pdf'), corpusBytes('pdf/pages-4.pdf'));
    writeFile(join(w.inbox, 'late/d.png'), corpusBytes('images/id-card.png'));
    const second = w.watch();
    await second.runUntil(() => second.lines().length === 4, 'four lines');
    const done = await second.stop();

    expect(done.code).toBe(130);
    const lines = parseNdjson(done.stdout);
    expect(lines).toHaveLength(4);
    const byFile = new Map(lines.map((line) => [String(line.file).split('/').slice(-1)[0], line]));
    expect(byFile.get('a.pdf')).toMatchObject({ status: 'complete', credits: 0, reused: expect.any(String) });
    expect(byFile.get('b.jpg')).toMatchObject({ status: 'complete', credits: 0, reused: expect.any(String) });
    expect(byFile.get('c.pdf')).toMatchObject({ status: 'complete', pages: 4 });
    expect(byFile.get('d.png')).toMatchObject({ status: 'complete' });
    expect(w.emu.counters.requestsByEndpoint.documents).toBe(before.documents + 2);
    expectNoContentUploadedTwice(w.emu, before.documents + 2);
  });

  it('a file replaced with new content is a new question: extracted again; the same bytes written again cost nothing', async () => {
    const w = await watchSetup();
    const path = join(w.inbox, 'x.jpg');
    writeFile(path, distinctJpeg('first'));
    const run = w.watch();
    await run.watching();
    await run.runUntil(() => run.lines().length === 1, 'the first line');
    const firstSha = sha256Of(path);
    await w.clock.advance(1000);
    writeFile(path, distinctJpeg('second'));
    await run.runUntil(() => run.lines().length === 2, 'the second line');
    await w.clock.advance(1000);
    writeFile(path, distinctJpeg('second')); // a new mtime, the same content
    await run.runUntil(() => run.lines().length === 3, 'the third line');
    const done = await run.stop();

    expect(w.uploads.map((upload) => upload.sha256)).toEqual([firstSha, sha256Of(path)]);
    const lines = parseNdjson(done.stdout);
    expect(lines.map((line) => line.status)).toEqual(['complete', 'complete', 'complete']);
    expect(lines[2]).toMatchObject({ credits: 0, reused: expect.any(String) });
  });

  it('--max-credits: once the budget stops admitting, watch stops taking files, says so, and exits 4', async () => {
    const w = await watchSetup();
    writeFile(join(w.inbox, 'four.pdf'), corpusBytes('pdf/pages-4.pdf'));
    writeFile(join(w.inbox, 'one.pdf'), corpusBytes('pdf/pages-1.pdf'));
    const run = w.watch(['--max-credits', '3']);
    await run.runUntil(() => run.ended() !== undefined, 'watch to stop by itself');
    const done = run.ended();

    expect(done?.code).toBe(4);
    expect(done?.stderr).toContain('no longer taking new files: --max-credits 3');
    expect(w.emu.counters.requestsByEndpoint.documents).toBe(0);
    const skipped = parseNdjson(done?.stdout ?? '');
    expect(skipped.map((line) => String(line.file))).toContainEqual(expect.stringContaining('four.pdf'));
    expect(skipped.map((line) => line.status)).toEqual(skipped.map(() => 'skipped'));
    expect(existsSync(join(w.inbox, 'four.pdf'))).toBe(true);
  });
});

describe('docextract watch: usage', () => {
  it('refuses a bad --settle (exit 2), before watching anything', async () => {
    const w = await watchSetup();
    mkdirSync(w.out, { recursive: true });
    const run = w.watch(['--settle', 'soon']);
    await run.runUntil(() => run.ended() !== undefined, 'the usage error');
    expect(run.ended()?.code).toBe(2);
    expect(run.ended()?.stderr).toContain('--settle');
  });
});
