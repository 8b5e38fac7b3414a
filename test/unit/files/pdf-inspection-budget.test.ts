/**
 * The budget of a local page count (bytes inflated, time), against the
 * security review's hostile PDF made small: a few MB of inflation trips a
 * budget injected small, where the real file inflates gigabytes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countPdfPages } from '../../../src/files/pdf-page-count.js';
import { inspectPdf, inspectPdfPages } from '../../../src/files/pdf-inspection.js';
import { checkPdfStructure } from '../../../src/files/pdf-structure.js';
import { InspectionBudget, InspectionBudgetExceeded } from '../../../src/files/pdf/inspection-budget.js';
import { decodeStreamData } from '../../../src/files/pdf/stream.js';
import { PdfDict, PdfName } from '../../../src/files/pdf/syntax.js';
import { preflightFile } from '../../../src/files/preflight.js';
import { planFiles } from '../../../src/engine/plan-documents.js';
import { hostilePdf } from '../../helpers/hostile-pdf.js';

const MiB = 1024 * 1024;
const plenty = { inflatedBytes: 1024 * MiB, timeMs: 600_000 };

/** What the count throws, or undefined when it answers. */
function budgetError(run: () => unknown): InspectionBudgetExceeded | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof InspectionBudgetExceeded) return error;
    throw error;
  }
}

describe('the hostile PDF (no xref, pages spread over object streams that inflate large)', () => {
  it('is a real PDF: counted in full when the budget allows', () => {
    const bytes = hostilePdf({ pages: 20, streams: 10, inflatedBytesPerStream: 256 * 1024 });
    expect(countPdfPages(bytes, new InspectionBudget(plenty))).toBe(20);
  });

  it('inflates each object stream once, however many pages it holds (the cache keeps decoded streams by bytes)', () => {
    // 10 streams of 1 MiB, 40 pages round-robin over them: a cache of 8 streams inflated one again for every page.
    const bytes = hostilePdf({ pages: 40, streams: 10, inflatedBytesPerStream: MiB });
    const budget = new InspectionBudget(plenty);
    expect(countPdfPages(bytes, budget)).toBe(40);
    expect(budget.inflatedBytes).toBe(10 * MiB);
  });

  it('stops at the byte budget, total across streams, with its own error', () => {
    const bytes = hostilePdf({ pages: 20, streams: 10, inflatedBytesPerStream: MiB });
    const budget = new InspectionBudget({ inflatedBytes: 4 * MiB, timeMs: 600_000 });
    expect(budgetError(() => countPdfPages(bytes, budget))?.kind).toBe('inflated_bytes');
    // zlib was asked for no more than the budget had left: the stream that tripped it was not inflated whole.
    expect(budget.inflatedBytes).toBe(4 * MiB + 1);
  });

  it('stops at the time budget, on the injected clock', () => {
    let now = 0;
    const clock = (): number => (now += 1); // a millisecond per look at the clock
    const bytes = hostilePdf({ pages: 200, streams: 2, inflatedBytesPerStream: 4096 });
    const budget = new InspectionBudget({ inflatedBytes: 1024 * MiB, timeMs: 100 }, clock);
    expect(budgetError(() => countPdfPages(bytes, budget))?.kind).toBe('time');
    expect(now).toBeLessThan(200); // stopped soon after the deadline, not at the end of the work
  });
});

describe('decodeStreamData and the budget', () => {
  it('asks zlib for no more than the budget has left, and charges what it inflated', () => {
    const raw = deflateSync(Buffer.alloc(8 * MiB));
    const dict = new PdfDict(new Map([['Filter', new PdfName('FlateDecode')]]));
    const budget = new InspectionBudget({ inflatedBytes: 3 * MiB, timeMs: 600_000 });
    expect(decodeStreamData(raw, dict, new InspectionBudget(plenty))?.length).toBe(8 * MiB);
    expect(budgetError(() => decodeStreamData(raw, dict, budget))?.kind).toBe('inflated_bytes');
    expect(budget.inflatedBytes).toBe(3 * MiB + 1);
  });
});

describe('inspectPdfPages: the count in a worker thread', () => {
  it('answers the count of a plain file, and too_complex past the budget', async () => {
    const small = hostilePdf({ pages: 5, streams: 2, inflatedBytesPerStream: 4096 });
    expect(await inspectPdfPages(small)).toEqual({ kind: 'counted', pages: 5 });
    const hostile = hostilePdf({ pages: 20, streams: 10, inflatedBytesPerStream: MiB });
    expect(await inspectPdfPages(hostile, { limits: { inflatedBytes: 2 * MiB, timeMs: 600_000 } })).toEqual({ kind: 'too_complex', budget: 'inflated_bytes' });
  });

  it('answers aborted once the signal is aborted, and counts the next file all the same', async () => {
    const hostile = hostilePdf({ pages: 20, streams: 10, inflatedBytesPerStream: MiB });
    const controller = new AbortController();
    const answer = inspectPdfPages(hostile, { signal: controller.signal });
    controller.abort();
    expect(await answer).toEqual({ kind: 'aborted' });
    expect(await inspectPdfPages(hostilePdf({ pages: 3, streams: 1, inflatedBytesPerStream: 1024 }))).toEqual({ kind: 'counted', pages: 3 });
  });
});

describe('the structure check before pdf-lib reads a file', () => {
  it('inflates every object stream once, within the budget, and throws past it', () => {
    const bytes = hostilePdf({ pages: 40, streams: 10, inflatedBytesPerStream: MiB });
    const budget = new InspectionBudget(plenty);
    checkPdfStructure(bytes, budget);
    expect(budget.inflatedBytes).toBe(10 * MiB);
    expect(budgetError(() => checkPdfStructure(bytes, new InspectionBudget({ inflatedBytes: 4 * MiB, timeMs: 600_000 })))?.kind).toBe('inflated_bytes');
  });

  it('runs in the worker like the count', async () => {
    const bytes = hostilePdf({ pages: 20, streams: 10, inflatedBytesPerStream: MiB });
    expect(await inspectPdf('structure', bytes, { limits: plenty })).toEqual({ kind: 'counted', pages: undefined });
    expect(await inspectPdf('structure', bytes, { limits: { inflatedBytes: 2 * MiB, timeMs: 600_000 } })).toEqual({
      kind: 'too_complex',
      budget: 'inflated_bytes',
    });
  });
});

describe('preflightFile past the budget', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'docextract-budget-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses the file with pdf_too_complex, naming it, the budget and what to do', async () => {
    const path = join(dir, 'hostile.pdf');
    writeFileSync(path, hostilePdf({ pages: 20, streams: 10, inflatedBytesPerStream: MiB }));
    const result = await preflightFile(path, { displayName: 'in/hostile.pdf', inspectionLimits: { inflatedBytes: 2 * MiB, timeMs: 600_000 } });
    expect(result).toMatchObject({ ok: false, code: 'pdf_too_complex' });
    expect(result.ok ? '' : result.message).toBe(
      'in/hostile.pdf: counting its pages inflated more than 2.0 MB of compressed data, past what docextract spends checking one file, so it is refused (its pages, and so its credits, are unknown); rewrite it first, e.g. qpdf --object-streams=disable in.pdf out.pdf, and extract the rewritten file',
    );
  });

  it('answers interrupted for a check the caller aborted', async () => {
    const path = join(dir, 'aborted.pdf');
    writeFileSync(path, hostilePdf({ pages: 3, streams: 1, inflatedBytesPerStream: 1024 }));
    expect(await preflightFile(path, { signal: AbortSignal.abort() })).toMatchObject({ ok: false, code: 'interrupted' });
  });

  it('planFiles reports a file whose check was cut short as interrupted, not failed', async () => {
    const path = join(dir, 'cut-short.pdf');
    writeFileSync(path, hostilePdf({ pages: 3, streams: 1, inflatedBytesPerStream: 1024 }));
    const planned = await planFiles([{ path, displayPath: 'cut-short.pdf' }], dir, {
      outDir: join(dir, 'out'),
      windows: [],
      ttlMs: 7_200_000,
      marginMs: 60_000,
      signal: AbortSignal.abort(),
    });
    expect(planned.documents).toEqual([]);
    expect(planned.rejected).toMatchObject([{ file: 'cut-short.pdf', status: 'interrupted', error: { code: 'interrupted' } }]);
  });
});
