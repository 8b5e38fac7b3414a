/**
 * A program's long batch keeps its memory near its live set, as the CLI's
 * does (issue 42: 20,000 files through the package peaked at 252 MB
 * untuned, 116 MB tuned; `node scripts/bench/library-scale.js 20000`), and
 * a program that manages V8 itself can say no.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { tuneHeapForLongRuns } from '../../../src/util/heap-tuning.js';
import { extractDocuments } from '../../../src/index.js';
import { TEST_KEY } from '../../helpers/emulator-run.js';

vi.mock('../../../src/util/heap-tuning.js', () => ({ tuneHeapForLongRuns: vi.fn() }));

async function started(options: { tuneHeap?: boolean }): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'heap-'));
  // Nothing listens on port 9: the run ends at once; the tuning is done (or not) by the call itself.
  const run = extractDocuments([], { apiKey: TEST_KEY, baseUrl: 'http://127.0.0.1:9', out: join(dir, 'out'), stateDir: join(dir, 'state'), ...options });
  await run.done.catch(() => undefined);
}

describe('extractDocuments and the heap', () => {
  beforeEach(() => vi.mocked(tuneHeapForLongRuns).mockClear());

  it('tunes the heap for a long run by default', async () => {
    await started({});
    expect(tuneHeapForLongRuns).toHaveBeenCalledTimes(1);
  });

  it('leaves V8 as the program set it with tuneHeap: false', async () => {
    await started({ tuneHeap: false });
    expect(tuneHeapForLongRuns).not.toHaveBeenCalled();
  });
});
