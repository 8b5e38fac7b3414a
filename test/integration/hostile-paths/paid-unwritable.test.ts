/**
 * A result paid for whose path is spoiled after the check and before the
 * write (a folder link appears in --out while the upload is answered). It
 * is never written through the link; the file fails alone (the rest of the
 * batch is written); the answer is kept in the state folder, and once the
 * link is gone the next run writes it without paying again.
 */
import { mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorEvent, RunningEmulator } from '../../../src/emulator/index.js';
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

describe('a result paid for that cannot be written', () => {
  it('fails alone (result_path_unusable), writes nothing through the link, is kept, and is written for nothing by the next run', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'sub/x.pdf': 'pdf/pages-2.pdf', 'top.pdf': 'pdf/pages-3.pdf', 'img/receipt.jpg': 'images/receipt.jpg' });
    const elsewhere = join(ws.dir, 'elsewhere');
    mkdirSync(elsewhere);
    mkdirSync(ws.out);
    const xSha = sha256Of(join(ws.inputs, 'sub/x.pdf'));
    const spoil = (event: EmulatorEvent): void => {
      if (event.type === 'upload' && event.sha256 === xSha) symlinkSync(elsewhere, join(ws.out, 'sub'));
    };
    emu.events.on('event', spoil);
    const env = emulatorEnv(emu);
    const args = ['extract', ws.inputs, '--out', ws.out, ...BASE_FLAGS];

    const first = await runCli(args, { env });
    emu.events.off('event', spoil);
    expectNoStackTrace(first.stderr);
    expect(first.code, first.stderr).toBe(1);
    const lines = parseNdjson(first.stdout);
    expect(lines.find((line) => String(line.file).endsWith('x.pdf'))).toMatchObject({
      status: 'failed',
      error: { code: 'result_path_unusable', message: expect.stringMatching(/is a link.*kept in/) },
    });
    expectCompleteResult(join(ws.out, 'top.pdf.json'), join(ws.inputs, 'top.pdf'), 3);
    expect(lines.find((line) => String(line.file).endsWith('receipt.jpg'))).toMatchObject({ status: 'complete' });
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(emu.counters.creditsCharged).toBe(2 + 3 + 1);

    rmSync(join(ws.out, 'sub'));
    const second = await runCli(args, { env });
    expectNoStackTrace(second.stderr);
    expect(second.code, second.stderr).toBe(0);
    expectCompleteResult(join(ws.out, 'sub/x.pdf.json'), join(ws.inputs, 'sub/x.pdf'), 2);
    expect(emu.counters.uploadsBySha256[xSha]).toBe(1);
    expect(emu.counters.creditsCharged).toBe(2 + 3 + 1);
  });

  it('watch: the file fails alone and watch goes on; a restart with the folder still in the way pays nothing, and one after it is gone writes the kept answer for nothing', async () => {
    const w = await watchSetup();
    const invoiceSha = sha256Of(writeAndReturn(join(w.inbox, 'invoice.pdf'), 'pdf/pages-2.pdf'));
    const blocker = join(w.out, 'invoice.pdf.json');
    const spoil = (event: EmulatorEvent): void => {
      if (event.type === 'upload' && event.sha256 === invoiceSha) mkdirSync(blocker, { recursive: true });
    };
    w.emu.events.on('event', spoil);
    const first = w.watch();
    await first.watching();
    await first.runUntil(() => first.lines().length === 1, 'invoice.pdf answered');
    w.emu.events.off('event', spoil);
    writeFile(join(w.inbox, 'later.pdf'), corpusBytes('pdf/pages-3.pdf'));
    await first.runUntil(() => first.lines().length === 2, 'later.pdf taken after the failure');
    const firstDone = await first.stop();
    expectNoStackTrace(firstDone.stderr);
    expect(firstDone.code).toBe(130);
    const lines = parseNdjson(firstDone.stdout);
    expect(lines.find((line) => String(line.file).endsWith('invoice.pdf'))).toMatchObject({
      status: 'failed',
      error: { code: 'result_path_unusable', message: expect.stringContaining('kept in') },
    });
    expect(lines.find((line) => String(line.file).endsWith('later.pdf'))).toMatchObject({ status: 'complete' });
    expect(w.emu.counters.creditsCharged).toBe(2 + 3);

    const second = w.watch();
    await second.watching();
    // Each restart takes later.pdf too (answered on disk, free): the lines are found by file, in whatever order they come.
    const invoiceLine = (lines: Record<string, unknown>[]) => lines.find((line) => String(line.file).endsWith('invoice.pdf'));
    await second.runUntil(() => invoiceLine(second.lines()) !== undefined, 'invoice.pdf refused before sending');
    expect(invoiceLine(second.lines())).toMatchObject({ status: 'failed', error: { code: 'result_path_unusable' } });
    expect((await second.stop()).code).toBe(130);
    expect(w.emu.counters.creditsCharged).toBe(2 + 3);

    rmSync(blocker, { recursive: true });
    const third = w.watch();
    await third.watching();
    await third.runUntil(() => invoiceLine(third.lines()) !== undefined, 'invoice.pdf written from the kept answer');
    const thirdDone = await third.stop();
    expect(invoiceLine(parseNdjson(thirdDone.stdout))).toMatchObject({ status: 'complete' });
    expectCompleteResult(blocker, join(w.inbox, 'invoice.pdf'), 2);
    expect(w.emu.counters.uploadsBySha256[invoiceSha]).toBe(1);
    expect(w.emu.counters.creditsCharged).toBe(2 + 3);
  });
});

function writeAndReturn(path: string, corpusName: string): string {
  writeFile(path, corpusBytes(corpusName));
  return path;
}
