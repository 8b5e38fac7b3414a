/**
 * Attack 6: a symbolic link dropped into a shared hot folder was followed,
 * and a file its dropper could not read was uploaded. A link is refused
 * (file_is_link, naming it), nothing of its target is sent, and the watch
 * goes on taking real files.
 */
import { chmodSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectNoStackTrace } from '../../helpers/emulator-run.js';
import { corpusBytes, watchSuite, writeFile } from '../../helpers/watch-folder.js';
import { parseNdjson, sha256Of } from '../../helpers/workspace.js';

const watchSetup = watchSuite();

describe('watch: links in the hot folder', () => {
  it('a link to a file outside the folder, and a dangling one, are refused with file_is_link and nothing is uploaded for them; a real file beside them is extracted', async () => {
    const w = await watchSetup();
    const secret = join(w.dir, 'private', 'payslip.pdf');
    writeFile(secret, corpusBytes('pdf/pages-2.pdf'));
    chmodSync(secret, 0o600); // the dropper's point: a file only this process's user reads
    symlinkSync(secret, join(w.inbox, 'payslip.pdf'));
    writeFile(join(w.inbox, 'invoice.pdf'), corpusBytes('pdf/pages-3.pdf'));
    // Pointing nowhere (or somewhere this process cannot look): still said, not silently passed over.
    symlinkSync(join(w.dir, 'nowhere.pdf'), join(w.inbox, 'dangling.pdf'));
    const run = w.watch();
    await run.watching();
    await run.runUntil(() => run.lines().length === 3, 'all three files answered');
    const done = await run.stop();

    expectNoStackTrace(done.stderr);
    expect(done.code).toBe(130);
    const lines = parseNdjson(done.stdout);
    const refused = lines.find((line) => String(line.file).endsWith('payslip.pdf'));
    expect(refused).toMatchObject({ status: 'failed', error: { code: 'file_is_link', message: expect.stringContaining('payslip.pdf') } });
    expect(lines.find((line) => String(line.file).endsWith('invoice.pdf'))).toMatchObject({ status: 'complete' });
    expect(lines.find((line) => String(line.file).endsWith('dangling.pdf'))).toMatchObject({ status: 'failed', error: { code: 'file_is_link' } });
    expect(w.emu.counters.uploadsBySha256[sha256Of(secret)]).toBeUndefined();
    expect(w.uploads.map((upload) => upload.sha256)).toEqual([sha256Of(join(w.inbox, 'invoice.pdf'))]);
    expect(w.resultExists('payslip.pdf')).toBe(false);
  });
});
