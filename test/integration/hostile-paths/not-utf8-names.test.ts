import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from '../../helpers/emulator-run.js';
import { labelledPdf } from '../../helpers/make-pdf.js';
import { runCli } from '../../helpers/run-cli.js';

/** `folder`/`name`, where `name` is bytes (a Latin-1 é, 0xe9, is no UTF-8). */
const rawPath = (folder: string, ...name: (string | number)[]): Buffer =>
  Buffer.concat([Buffer.from(`${folder}/`), ...name.map((piece) => (typeof piece === 'number' ? Buffer.from([piece]) : Buffer.from(piece)))]);

describe('docextract extract: a name that is not UTF-8', () => {
  let emulator: RunningEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
  });

  it('reports such a file, found in a folder or named, and such a folder, escaped, with name_not_utf8 (not file_not_found), and extracts the rest', async () => {
    emulator = await startTestEmulator();
    const env = emulatorEnv(emulator);
    const dir = mkdtempSync(join(tmpdir(), 'docextract-not-utf8-'));
    const inbox = join(dir, 'in');
    mkdirSync(inbox);
    const pdf = await labelledPdf('Invoice', 1);
    writeFileSync(join(inbox, 'ok.pdf'), pdf);
    writeFileSync(rawPath(inbox, 'caf', 0xe9, '.pdf'), pdf);
    mkdirSync(rawPath(inbox, 'scans-', 0xff));
    writeFileSync(rawPath(inbox, 'scans-', 0xff, '/inside.pdf'), pdf);
    // Node decodes a name it is given that is not UTF-8 as it decodes one it reads: with U+FFFD.
    const named = join(inbox, 'caf\uFFFD.pdf');
    const run = await runCli(['extract', inbox, named, '--model', 'invoice', '--out', join(dir, 'out'), '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code, run.stderr).toBe(1);
    const outcomes = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { file: string; status: string; error?: { code: string; message: string } | null });
    expect(outcomes.filter((outcome) => outcome.status === 'complete').map((outcome) => outcome.file)).toEqual([join(inbox, 'ok.pdf')]);
    const refused = outcomes.filter((outcome) => outcome.error);
    expect(refused.map((outcome) => outcome.error?.code)).toEqual(['name_not_utf8', 'name_not_utf8']);
    for (const outcome of refused) expect(outcome.error?.message).toContain(`caf\\xe9.pdf: the file's name is not valid UTF-8`);
    expect(run.stderr).toContain(`scans-\\xff: the folder's name is not valid UTF-8, which no result can be named after; nothing in it is taken.`);
    expect(run.stderr).toContain('(name_not_utf8)');
    expect(emulator.counters.requestsByEndpoint.documents).toBe(1);
  });
});
