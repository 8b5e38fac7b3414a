/**
 * Attack 13: a file name so long that its result could never be written
 * (the atomic write's tmp name passed NAME_MAX), so each run paid again.
 * A result whose own name fits is written; one whose name cannot fit is
 * refused before anything is sent. Neither is ever paid twice.
 */
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { FAST_FLAGS, emulatorEnv, expectNoStackTrace, startTestEmulator } from '../../helpers/emulator-run.js';
import { runCli } from '../../helpers/run-cli.js';
import { CORPUS, expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';

const BASE_FLAGS = ['--json', '--rate-limit', 'none', ...FAST_FLAGS];

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('long file names', () => {
  it('a 240-byte name is extracted and written; a 252-byte one (result past 255 bytes) is refused before upload; a second run pays nothing', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'short.pdf': 'pdf/pages-2.pdf' });
    const fits = `${'f'.repeat(236)}.pdf`;
    const tooLong = `${'t'.repeat(248)}.pdf`;
    expect([Buffer.byteLength(fits), Buffer.byteLength(tooLong)]).toEqual([240, 252]);
    copyFileSync(join(CORPUS, 'pdf/pages-3.pdf'), join(ws.inputs, fits));
    copyFileSync(join(CORPUS, 'images/receipt.jpg'), join(ws.inputs, tooLong));
    const args = ['extract', ws.inputs, '--out', ws.out, ...BASE_FLAGS];

    const first = await runCli(args, { env: emulatorEnv(emu) });
    expectNoStackTrace(first.stderr);
    expect(first.code, first.stderr).toBe(1);
    const lines = parseNdjson(first.stdout);
    expect(lines.find((line) => String(line.file).endsWith(fits))).toMatchObject({ status: 'complete' });
    expectCompleteResult(join(ws.out, `${fits}.json`), join(ws.inputs, fits), 3);
    expect(lines.find((line) => String(line.file).endsWith(tooLong))).toMatchObject({ status: 'failed', error: { code: 'file_name_too_long' } });
    expect(existsSync(join(ws.out, 'short.pdf.json'))).toBe(true);
    expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, tooLong))]).toBeUndefined();
    expect(emu.counters.creditsCharged).toBe(3 + 2);

    const second = await runCli(args, { env: emulatorEnv(emu) });
    expect(second.code, second.stderr).toBe(1);
    expect(emu.counters.creditsCharged).toBe(3 + 2);
    expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, fits))]).toBe(1);
  });
});
