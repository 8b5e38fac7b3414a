/**
 * `watch` cuts a PDF past the service's limits into parts, as `extract` does (README, "PDFs past the
 * service's limits"; issue 53): a 151-page PDF dropped into the folder is sent as two parts, and gets
 * one line and one result file listing them; its source is moved to --move-done only once that result
 * is written, never after its first part. An 11 MB PDF whose page is small is sent as its cut.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePdfWithFiller, makePdfWithPages } from '../../../fixtures/large.js';
import { SERVICE_LIMITS } from '../../../src/api/limits.js';
import { corpusBytes, watchSuite, writeFile } from '../../helpers/watch-folder.js';
import { expectCompleteResult, parseNdjson, sha256Of } from '../../helpers/workspace.js';

const watchSetup = watchSuite();

interface PartsResult {
  status: string;
  source: { sha256: string; pages: number };
  parts: { source_pages: number[]; status: string; result_file: string | null }[];
}

describe('docextract watch: a PDF past the limits', () => {
  it(
    'is cut into parts as extract cuts it: one line and one result listing the parts, and moved to --move-done once that result is written',
    { timeout: 240_000 },
    async () => {
      const w = await watchSetup();
      const failed = join(w.dir, 'failed');
      const done = join(w.dir, 'done');
      // A 151-page and an 11 MB PDF are read whole: slow on a loaded 2-core machine (68 s seen), so the waits are longer.
      const run = w.watch(['--move-done', done, '--move-failed', failed], { realTimeoutMs: 200_000 });
      await run.watching();
      writeFile(join(w.inbox, 'long.pdf'), Buffer.from(await makePdfWithPages(SERVICE_LIMITS.maxPages + 1)));
      writeFile(join(w.inbox, 'heavy.pdf'), Buffer.from(makePdfWithFiller(SERVICE_LIMITS.maxFileBytes + 1024 * 1024)));
      writeFile(join(w.inbox, 'fits.pdf'), corpusBytes('pdf/pages-4.pdf'));
      const settled = (): boolean => {
        const lines = run.lines();
        return ['long.pdf', 'heavy.pdf', 'fits.pdf'].every((name) => {
          const line = lines.find((candidate) => String(candidate.file).endsWith(`/${name}`));
          return line !== undefined && existsSync(join(line.status === 'complete' ? done : failed, name));
        });
      };
      await run.runUntil(settled, 'a line for each file, and its move');
      const stopped = await run.stop();

      expect(stopped.code).toBe(130);
      const lines = parseNdjson(stopped.stdout);
      // One line a source: no line of a part on its own.
      expect(lines.map((line) => String(line.file).split('/').pop()).sort()).toEqual(['fits.pdf', 'heavy.pdf', 'long.pdf']);
      const byName = new Map(lines.map((line) => [String(line.file).split('/').pop(), line]));
      expect(byName.get('long.pdf')).toMatchObject({ status: 'complete', pages: 151, output: join(w.out, 'long.pdf.json') });
      expect((byName.get('long.pdf')?.parts as unknown[]).length).toBe(2);
      expect(byName.get('heavy.pdf')).toMatchObject({ status: 'complete' });
      expect(byName.get('fits.pdf')).toMatchObject({ status: 'complete' });
      expectCompleteResult(join(w.out, 'fits.pdf.json'), join(done, 'fits.pdf'), 4);

      const long = JSON.parse(readFileSync(join(w.out, 'long.pdf.json'), 'utf8')) as PartsResult;
      expect(long).toMatchObject({ status: 'complete', source: { sha256: sha256Of(join(done, 'long.pdf')), pages: 151 } });
      expect(long.parts.map((part) => [part.status, part.source_pages.length])).toEqual([
        ['complete', 150],
        ['complete', 1],
      ]);
      for (const part of long.parts) expect(existsSync(part.result_file as string)).toBe(true);
      // Four questions sent: the two parts of long.pdf, the cut of heavy.pdf, fits.pdf (a job that expired
      // while the fake clock ran ahead under load is uploaded again, once: the same bytes).
      expect(new Set(w.uploads.map((upload) => upload.sha256)).size).toBe(4);
      expect(existsSync(failed)).toBe(false);
    },
  );
});
