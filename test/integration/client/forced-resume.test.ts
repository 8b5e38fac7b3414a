/**
 * A forced run of the client resumes as the CLI's `--force` does (issue 53): a program's forced
 * run cancelled after its first document is run again with the same inputs and output folder;
 * what the cancelled run extracted is kept (answered from disk), the rest extracted again, so no
 * page is charged twice by the forced runs together. Before the client carried a force identity,
 * a forced library run never resumed: every file was extracted (and charged) again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocExtract, type DocumentOutcome, type ExtractionRun } from '../../../src/index.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator, TEST_KEY } from '../../helpers/emulator-run.js';
import { makeWorkspace } from '../../helpers/workspace.js';

const FILES = { 'receipt.jpg': 'images/receipt.jpg', 'id-card.png': 'images/id-card.png', 'one.pdf': 'pdf/pages-1.pdf', 'two.pdf': 'pdf/pages-2.pdf' };
const PAGES = 1 + 1 + 1 + 2;

let emu: RunningEmulator;
beforeAll(async () => (emu = await startTestEmulator()));
afterAll(() => emu.close());

async function outcomesOf(run: ExtractionRun, onEach: (outcome: DocumentOutcome) => void = () => undefined): Promise<DocumentOutcome[]> {
  const outcomes: DocumentOutcome[] = [];
  for await (const outcome of run) {
    outcomes.push(outcome);
    onEach(outcome);
  }
  return outcomes;
}

describe('a forced run of the client', () => {
  it('cancelled, then run again with the same inputs, resumes: what it extracted is kept, no page charged twice by the forced runs', async () => {
    const ws = makeWorkspace(FILES);
    const env = emulatorEnv(emu);
    const dx = new DocExtract({
      apiKey: TEST_KEY,
      baseUrl: emu.url,
      stateDir: env.DOCEXTRACT_STATE_DIR as string,
      rateLimit: 'none',
      cwd: ws.dir,
      settings: { concurrency: 1 },
    });
    const plain = dx.extract([ws.inputs], { out: ws.out, tuneHeap: false });
    expect((await outcomesOf(plain)).map((outcome) => outcome.status)).toEqual(Object.keys(FILES).map(() => 'complete'));
    const beforeForced = emu.counters.creditsCharged;
    expect(beforeForced).toBe(PAGES);

    const forced = dx.extract([ws.inputs], { out: ws.out, force: true, tuneHeap: false });
    const first = await outcomesOf(forced, (outcome) => {
      if (outcome.status === 'complete') forced.cancel();
    });
    expect((await forced.done).interrupted).toBe(true);
    const extractedThen = first.filter((outcome) => outcome.status === 'complete' && !outcome.reused).map((outcome) => outcome.file);
    expect(extractedThen.length).toBeGreaterThan(0);
    expect(extractedThen.length).toBeLessThan(Object.keys(FILES).length);

    const resumed = dx.extract([ws.inputs], { out: ws.out, force: true, tuneHeap: false });
    const again = await outcomesOf(resumed);
    expect(again.map((outcome) => outcome.status)).toEqual(Object.keys(FILES).map(() => 'complete'));
    // What the cancelled forced run extracted is answered from disk; the forced runs together paid each page once.
    for (const file of extractedThen) expect(again.find((outcome) => outcome.file === file)?.reused).toBeTruthy();
    expect(emu.counters.creditsCharged - beforeForced).toBe(PAGES);
  });
});
