import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { corpusBytes, watchSuite, writeFile } from '../../helpers/watch-folder.js';
import { parseNdjson, sha256Of } from '../../helpers/workspace.js';

const watchSetup = watchSuite();

describe('docextract watch --pages', () => {
  it('sends only the chosen pages of each file that arrives, and its result names them', async () => {
    const w = await watchSetup();
    const run = w.watch(['--pages', '1,-1']);
    await run.watching();
    const scan = join(w.inbox, 'twelve.pdf');
    writeFile(scan, corpusBytes('pdf/pages-12.pdf'));
    await run.runUntil(() => run.lines().some((line) => line.status === 'complete'), 'twelve.pdf complete');
    const done = await run.stop();

    expect(parseNdjson(done.stdout)).toEqual([expect.objectContaining({ status: 'complete', pages: 2, credits: 2 })]);
    expect(w.emu.counters.creditsCharged).toBe(2);
    expect(w.uploads.map((upload) => upload.sha256)).not.toContain(sha256Of(scan));
    const result = JSON.parse(readFileSync(join(w.out, 'twelve.pdf.p1,12.json'), 'utf8')) as { source_pages: number[]; source: { sha256: string } };
    expect(result).toMatchObject({ source_pages: [1, 12], source: { sha256: sha256Of(scan) } });
  });
});
