import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusBytes, watchSuite, writeFile } from '../../helpers/watch-folder.js';

const watchSetup = watchSuite();

describe('docextract watch --schema', () => {
  it('checks each result as it arrives: in the file, on the --json line and in the summary', async () => {
    const w = await watchSetup();
    const schema = join(w.dir, 'invoice.schema.json');
    writeFileSync(schema, JSON.stringify({ type: 'object', required: ['invoice_number', 'po_number'], properties: { total: { type: 'number' } } }));
    const run = w.watch(['--schema', `invoice=${schema}`]);
    await run.watching();
    writeFile(join(w.inbox, 'a.pdf'), corpusBytes('pdf/pages-2.pdf'));
    await run.runUntil(() => run.lines().some((line) => line.status === 'complete'), 'a.pdf complete');
    const done = await run.stop();

    expect(done.code).toBe(130); // watch ends by a stop; the verdicts are in the files and lines
    const checks = { schema, passed: false, problems: [{ path: 'po_number', message: 'is required' }] };
    expect(run.lines()).toEqual([expect.objectContaining({ status: 'complete', checks })]);
    expect((JSON.parse(readFileSync(join(w.out, 'a.pdf.json'), 'utf8')) as { checks: unknown }).checks).toEqual(checks);
    expect(done.stderr).toContain('1 failed checks');
  });
});
