/**
 * The page counters (worker threads) of a planned batch end once its last
 * slice is checked: a process that exits with them alive tears them down
 * after its last answer, which the schedule bench counts (issue 53).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { planDocumentStream } from '../../../src/engine/plan-documents.js';
import { idleInspectionWorkers } from '../../../src/files/pdf-inspection.js';
import { parseRateWindows } from '../../../src/config/grammar/rate-limit.js';
import { labelledPdf } from '../../helpers/make-pdf.js';

const dir = mkdtempSync(join(tmpdir(), 'dx-plan-workers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('keeps the page counters between slices, and ends them once the last slice is checked', async () => {
  mkdirSync(join(dir, 'in'));
  for (const name of ['a', 'b', 'c']) writeFileSync(join(dir, 'in', `${name}.pdf`), await labelledPdf(name, 2));
  const stream = await planDocumentStream(
    ['in'],
    { cwd: dir, outDir: join(dir, 'out'), windows: parseRateWindows('8/1s'), ttlMs: 7_200_000, marginMs: 600_000 },
    2,
  );
  const first = await stream.slices.next();
  expect(first.done ? [] : first.value.documents.map((doc) => doc.pages)).toEqual([2, 2]);
  expect(idleInspectionWorkers()).toBeGreaterThan(0); // kept for the next slice
  const last = await stream.slices.next();
  expect(last.done ? [] : last.value.documents.map((doc) => doc.pages)).toEqual([2]);
  // Handed over before the run asks for more: the workers went with the last slice, not at the end of the run.
  expect(idleInspectionWorkers()).toBe(0);
  expect((await stream.slices.next()).done).toBe(true);
});
