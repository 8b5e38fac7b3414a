/**
 * `dx.result` (issue 53): one document's result read back through the client, as MCP's result
 * tool reads it. By its result file or by its source looked up in output folders; a person's
 * corrections applied; the verdict of the checker named; nothing sent, no key needed.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocExtract, type ResultChecker } from '../../../src/index.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator, TEST_KEY } from '../../helpers/emulator-run.js';
import { correctedByAPerson } from '../../helpers/result-document.js';
import { makeWorkspace } from '../../helpers/workspace.js';

let emu: RunningEmulator;
beforeAll(async () => (emu = await startTestEmulator()));
afterAll(() => emu.close());

describe('a result read back through the client', () => {
  it('by its file or its source, corrected when a person did, checked by the checker named; nothing sent', async () => {
    const ws = makeWorkspace({ 'receipt.jpg': 'images/receipt.jpg' });
    const stateDir = emulatorEnv(emu).DOCEXTRACT_STATE_DIR as string;
    const dx = new DocExtract({ apiKey: TEST_KEY, baseUrl: emu.url, stateDir, rateLimit: 'none', cwd: ws.dir });
    const report = await dx.extract([ws.inputs], { out: ws.out, tuneHeap: false }).done;
    expect(report.counts.complete).toBe(1);
    const output = join(ws.out, 'receipt.jpg.json');
    const sentBefore = emu.counters.requestsByEndpoint.documents;

    // A client without a key reads it as well: reading sends nothing.
    const reader = new DocExtract({ stateDir, cwd: ws.dir });
    const byFile = await reader.result(output);
    expect(byFile).toMatchObject({ output, reviewed: false, inParts: false, others: [] });
    expect(byFile?.checks).toBeUndefined();
    const extracted = byFile?.result.data as Record<string, unknown>;
    expect(byFile?.data).toEqual(extracted);
    // By its source, relative to the client's folder, looked up in the output folder named (relative too).
    expect((await reader.result('in/receipt.jpg', { outs: ['out'] }))?.output).toBe(output);
    expect(await reader.result('in/receipt.jpg')).toBeUndefined();
    expect(await reader.result('in/no-such.jpg', { outs: ['out'] })).toBeUndefined();

    // A person's correction of this very extraction applies.
    const result = byFile!.result;
    await correctedByAPerson(output, { total: 'CORRECTED' });
    const checked: unknown[] = [];
    const checker: ResultChecker = {
      check: (type, data) => {
        checked.push([type, data]);
        return { schema: '/schemas/receipt.json', passed: true, problems: [] };
      },
    };
    const corrected = await reader.result(output, { checker });
    expect(corrected).toMatchObject({ reviewed: true, data: { ...extracted, total: 'CORRECTED' }, checks: { passed: true } });
    // The verdict is on the corrected data.
    expect(checked).toEqual([[result.model, { ...extracted, total: 'CORRECTED' }]]);
    expect(emu.counters.requestsByEndpoint.documents).toBe(sentBefore);
  });
});
