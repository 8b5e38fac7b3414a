/**
 * Attack 5: a folder where a result must go (`<name>.pdf.json/`). It is one
 * file's failure, found before anything is paid for; the rest of the batch
 * goes on, and a watch keeps running and does not pay again on its next start.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { FAST_FLAGS, emulatorEnv, expectNoStackTrace, startTestEmulator } from '../../helpers/emulator-run.js';
import { runCli } from '../../helpers/run-cli.js';
import { corpusBytes, watchSuite, writeFile } from '../../helpers/watch-folder.js';
import { expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';

const BASE_FLAGS = ['--json', '--rate-limit', 'none', ...FAST_FLAGS];

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const watchSetup = watchSuite();

describe('a folder where a result must go', () => {
  it('extract: that file is refused before it is sent (result_path_unusable), the others are extracted, exit 1', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'invoice.pdf': 'pdf/pages-2.pdf', 'other.pdf': 'pdf/pages-3.pdf', 'receipt.jpg': 'images/receipt.jpg' });
    mkdirSync(join(ws.out, 'invoice.pdf.json'), { recursive: true });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, ...BASE_FLAGS], { env: emulatorEnv(emu) });

    expectNoStackTrace(run.stderr);
    expect(run.code, run.stderr).toBe(1);
    const lines = parseNdjson(run.stdout);
    const blocked = lines.find((line) => String(line.file).endsWith('invoice.pdf'));
    expect(blocked).toMatchObject({ status: 'failed', error: { code: 'result_path_unusable', message: expect.stringContaining('invoice.pdf.json') } });
    expectCompleteResult(join(ws.out, 'other.pdf.json'), join(ws.inputs, 'other.pdf'), 3);
    expect(lines.find((line) => String(line.file).endsWith('receipt.jpg'))).toMatchObject({ status: 'complete' });
    expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'invoice.pdf'))]).toBeUndefined();
    expect(emu.counters.creditsCharged).toBe(3 + 1);
    expect(readdirSync(join(ws.out, 'invoice.pdf.json'))).toEqual([]);
  });

  it('watch: the file is refused before it is sent and watch keeps taking files; a second start pays nothing for it', async () => {
    const w = await watchSetup();
    mkdirSync(join(w.out, 'invoice.pdf.json'), { recursive: true });
    writeFile(join(w.inbox, 'invoice.pdf'), corpusBytes('pdf/pages-2.pdf'));
    const first = w.watch();
    await first.watching();
    await first.runUntil(() => first.lines().length === 1, 'invoice.pdf refused');
    writeFile(join(w.inbox, 'later.pdf'), corpusBytes('pdf/pages-3.pdf'));
    await first.runUntil(() => first.lines().length === 2, 'later.pdf taken after the refusal');
    const done = await first.stop();

    expectNoStackTrace(done.stderr);
    expect(done.code).toBe(130); // stopped by the test, not ended by the refusal
    const lines = parseNdjson(done.stdout);
    expect(lines.find((line) => String(line.file).endsWith('invoice.pdf'))).toMatchObject({ status: 'failed', error: { code: 'result_path_unusable' } });
    expect(lines.find((line) => String(line.file).endsWith('later.pdf'))).toMatchObject({ status: 'complete' });
    expect(w.emu.counters.uploadsBySha256[sha256Of(join(w.inbox, 'invoice.pdf'))]).toBeUndefined();
    expect(w.emu.counters.creditsCharged).toBe(3);

    const second = w.watch();
    await second.watching();
    await second.runUntil(() => second.lines().length === 1, 'invoice.pdf refused again');
    const again = await second.stop();
    expect(again.code).toBe(130);
    expect(w.emu.counters.creditsCharged).toBe(3);
  });
});
