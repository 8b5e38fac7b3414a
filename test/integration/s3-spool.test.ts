/**
 * The spool keeps an object's bytes only while its document is worked on: a
 * run of `extract s3://…` ends with none of them in the state folder, while
 * the key index (its record) spares a rerun both the download and the
 * payment. A document that must be sent again (its result deleted) is the
 * only one downloaded again, and it too is let go of once written. `review`
 * of results put in a bucket needs none of the inputs' bytes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { corpusFile, useMotoSuite } from '../helpers/moto-suite.js';
import { makeBucket } from '../helpers/s3-objects.js';
import { startReviewCli } from '../helpers/review-run.js';
import { runCli } from '../helpers/run-cli.js';
import { spooledObjects } from '../helpers/spool-files.js';
import { parseNdjson } from '../helpers/workspace.js';

const suite = useMotoSuite();
const downloads = (): string[] =>
  suite.moto.requests.filter((request) => request.target.includes('x-id=GetObject')).map((request) => request.target.split('?')[0] as string);

describe('the spool of s3:// inputs', () => {
  it('holds nothing once a run ends; a rerun downloads and pays nothing, and only a document sent again is downloaded again', async () => {
    const bucket = await makeBucket(suite.s3, 'spooled');
    await bucket.put('in/a.pdf', corpusFile('pdf/pages-2.pdf'));
    await bucket.put('in/b.png', corpusFile('images/id-card.png'));
    const env = suite.env();
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const out = join(mkdtempSync(join(tmpdir(), 'docextract-spool-')), 'out');
    const extract = async () => {
      const run = await runCli(['extract', 's3://spooled/in/', '--out', out, '--json', ...UNTHROTTLED_FLAGS], { env });
      expect(run.code, run.stderr).toBe(0);
      return parseNdjson(run.stdout).map((line) => [line.file, line.status]);
    };
    const done = [
      ['s3://spooled/in/a.pdf', 'complete'],
      ['s3://spooled/in/b.png', 'complete'],
    ];

    expect((await extract()).sort()).toEqual(done);
    expect(downloads().sort()).toEqual(['/spooled/in/a.pdf', '/spooled/in/b.png']);
    expect(spooledObjects(stateDir)).toEqual([]);
    const paid = suite.paidRequests();

    await suite.moto.clearLog();
    expect((await extract()).sort()).toEqual(done);
    expect(downloads()).toEqual([]);
    expect(suite.paidRequests()).toBe(paid);

    // Its result gone, b.png must be sent again: only it is downloaded, and let go of once written.
    rmSync(join(out, 'b.png.json'));
    await suite.moto.clearLog();
    expect((await extract()).sort()).toEqual(done);
    expect(downloads()).toEqual(['/spooled/in/b.png']);
    expect(suite.paidRequests()).toBe(paid + 1);
    expect(spooledObjects(stateDir)).toEqual([]);
  });

  it('review s3://… of a run’s results shows each document with the spool empty (an object’s source is not shown)', async () => {
    const bucket = await makeBucket(suite.s3, 'reviewed');
    await bucket.put('in/a.pdf', corpusFile('pdf/pages-2.pdf'));
    await makeBucket(suite.s3, 'reviewed-out');
    const env = suite.env();
    const run = await runCli(['extract', 's3://reviewed/in/', '--out', 's3://reviewed-out/r/', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(spooledObjects(env.DOCEXTRACT_STATE_DIR as string)).toEqual([]);
    const review = await startReviewCli(['s3://reviewed-out/r/'], env);
    try {
      const view = await fetch(`${review.url}api/document?id=a.pdf.json`);
      expect(view.status, await view.clone().text()).toBe(200);
      expect(await view.json()).toMatchObject({ source: 's3://reviewed/in/a.pdf' });
      expect((await fetch(`${review.url}source?id=a.pdf.json`)).status).toBe(404);
    } finally {
      await review.stop();
    }
  });
});
