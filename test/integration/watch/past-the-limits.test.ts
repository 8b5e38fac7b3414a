/**
 * `watch` does not cut parts (README, "PDFs past the service's limits"): a
 * PDF past the service's limits dropped into the folder is refused before
 * anything is sent (page_limit_exceeded past 150 pages, file_too_large past
 * 10 MB), its failure is final (it goes to --move-failed), and a PDF that
 * fits beside it is extracted as usual.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makePdfWithFiller, makePdfWithPages } from '../../../fixtures/large.js';
import { SERVICE_LIMITS } from '../../../src/api/limits.js';
import { corpusBytes, watchSuite, writeFile } from '../../helpers/watch-folder.js';
import { expectCompleteResult, parseNdjson, sha256Of } from '../../helpers/workspace.js';

const watchSetup = watchSuite();

describe('docextract watch: a PDF past the limits', () => {
  it(
    'is refused without an upload (page_limit_exceeded, file_too_large) and moved to --move-failed; one that fits is extracted',
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
      // A line for each of the three, and each source moved where its line sends it (a failed one to failed, a complete one to done).
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
      const byName = new Map(parseNdjson(stopped.stdout).map((line) => [String(line.file).split('/').pop(), line]));
      expect(byName.get('long.pdf')).toMatchObject({ status: 'failed', credits: 0, error: { code: 'page_limit_exceeded' } });
      expect(byName.get('heavy.pdf')).toMatchObject({ status: 'failed', credits: 0, error: { code: 'file_too_large' } });
      expect(byName.get('long.pdf')).not.toHaveProperty('parts');
      expect(byName.get('fits.pdf')).toMatchObject({ status: 'complete' });
      expectCompleteResult(join(w.out, 'fits.pdf.json'), join(done, 'fits.pdf'), 4);
      // Nothing of the refused two was sent: one upload in all, of the one that fits.
      expect(w.uploads.map((upload) => upload.sha256)).toEqual([sha256Of(join(done, 'fits.pdf'))]);
      expect(existsSync(join(w.out, 'long.pdf.json'))).toBe(false);
      expect(existsSync(join(w.out, '.parts'))).toBe(false);
    },
  );
});
