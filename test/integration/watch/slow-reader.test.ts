/**
 * `watch` piped into a reader that stops reading: no file is taken while the
 * lines already printed wait, so a stalled `| jq` beside a folder of
 * 100,000 files holds the watch back instead of every line in memory.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARRIVALS_AT_ONCE } from '../../../src/files/hot-folder.js';
import { StalledPipe } from '../../helpers/stalled-pipe.js';
import { watchSuite, writeFile } from '../../helpers/watch-folder.js';

const watchSetup = watchSuite();

describe('docextract watch and a reader that stops reading', () => {
  it('takes each batch of settled files only once the reader has taken the lines before it', async () => {
    const w = await watchSetup();
    // Files refused before sending each give a line and cost no request: more than two batches' worth, there at the start.
    const count = 2 * ARRIVALS_AT_ONCE + 200;
    for (let i = 0; i < count; i++) writeFile(join(w.inbox, `not-a-pdf-${String(i).padStart(4, '0')}.pdf`), Buffer.from('not a PDF'));
    const stdout = new StalledPipe();
    const run = w.watch([], { stdout });
    await run.runUntil(() => stdout.lines.length === count, `${count} lines`);
    const done = await run.stop();
    expect(done.code, done.stderr).toBe(130); // stopped, as by SIGTERM
    expect(done.stderr).toContain(`${count} failed`);
    expect(new Set(stdout.lines.map((line) => (JSON.parse(line) as { error: { code: string } }).error.code))).toEqual(new Set(['invalid_file_type']));
    // The positive signal that it held back: it waited for the reader, and never left more than a batch unread.
    expect(stdout.waits.length).toBeGreaterThanOrEqual(2);
    expect(stdout.mostUnread).toBeGreaterThan(0);
    expect(stdout.mostUnread).toBeLessThanOrEqual(ARRIVALS_AT_ONCE);
  });
});
