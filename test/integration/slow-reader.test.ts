/**
 * `extract` piped into a reader that stops reading (`| jq` behind a full
 * pipe, a parent that reads late): the run takes no more files while its
 * lines wait, so what Node queues for the pipe stays a slice's worth, not
 * ~1 KB for every file of a million. (`watch`: watch/slow-reader.test.ts.)
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { PLAN_SLICE } from '../../src/engine/running-window.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { runCli } from '../helpers/run-cli.js';
import { StalledPipe } from '../helpers/stalled-pipe.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu.close();
});

describe('extract and a reader that stops reading', () => {
  it('takes its next slice of files only once the reader has taken the lines before it', async () => {
    // Files refused before sending each give a line and cost no request: 2 whole slices and part of a third.
    const count = 2 * PLAN_SLICE + 200;
    const dir = mkdtempSync(join(tmpdir(), 'docextract-slow-reader-'));
    mkdirSync(join(dir, 'in'));
    for (let i = 0; i < count; i++) writeFileSync(join(dir, 'in', `not-a-pdf-${String(i).padStart(4, '0')}.pdf`), 'not a PDF');
    const stdout = new StalledPipe();
    const run = await runCli(['extract', 'in', '--json', ...UNTHROTTLED_FLAGS], { env: emulatorEnv(emu), cwd: dir, stdout });
    expect(run.stderr).toContain(`${count} failed`);
    expect(run.code).toBe(1);
    expect(stdout.lines).toHaveLength(count);
    expect(new Set(stdout.lines.map((line) => (JSON.parse(line) as { error: { code: string } }).error.code))).toEqual(new Set(['invalid_file_type']));
    // It waited after each whole slice, before checking the next: never more than a slice of lines unread.
    expect(stdout.waits).toEqual([PLAN_SLICE, 2 * PLAN_SLICE]);
    expect(stdout.mostUnread).toBe(PLAN_SLICE);
  });
});
