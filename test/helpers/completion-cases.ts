import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorRequestLog, RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator } from './emulator-run.js';
import { runCli } from './run-cli.js';
import { ShellSession, type ShellName } from './shell-driver.js';

/**
 * The completion a person gets in `shell` after loading the script as the
 * README says: real command lines typed into the real shell's line editor,
 * Tab pressed, the line read back. Document types come from the `models`
 * answer kept by an earlier `docextract models`, and no Tab sends a request.
 */
export function shellCompletionSuite(shell: ShellName): void {
  describe(`completion in ${shell}`, () => {
    let emulator: RunningEmulator;
    let session: ShellSession;
    const requests: EmulatorRequestLog[] = [];

    beforeAll(async () => {
      emulator = await startTestEmulator({ onRequest: (entry) => requests.push(entry) });
      const env = emulatorEnv(emulator);
      const models = await runCli(['models'], { env });
      expect(models.code, models.stderr).toBe(0);
      expect(requests.map((request) => request.endpoint)).toEqual(['models']);
      const folder = mkdtempSync(join(tmpdir(), 'docextract-complete-'));
      mkdirSync(join(folder, 'scans-in'));
      writeFileSync(join(folder, 'scans.pdf'), '%PDF-1.4\n');
      session = await ShellSession.start(shell, env, folder);
    });
    afterAll(async () => {
      await session?.close();
      await emulator?.close();
    });

    it('completes a command and a flag of that command', async () => {
      expect(await session.complete('docextract ext')).toBe('docextract extract ');
      expect(await session.complete('docextract extract --max-c')).toBe('docextract extract --max-credits ');
      expect(await session.complete('docextract config se')).toBe('docextract config set ');
      expect(await session.complete('docextract config set rate-l')).toBe('docextract config set rate-limit ');
    });

    it('offers every command a prefix starts: ex is export or extract', async () => {
      expect(await session.complete('docextract ex')).toBe('docextract ex');
    });

    it('offers the document types of the last models answer, alone or after GLOB=, and sends nothing', async () => {
      const before = requests.length;
      expect(await session.complete('docextract extract --model inv')).toBe('docextract extract --model invoice ');
      expect(await session.complete('docextract extract --model=inv')).toBe('docextract extract --model=invoice ');
      // zsh quotes the glob it puts back (ids/\*\*=id_card): the same word once the shell has read it.
      expect((await session.complete('docextract watch ./in --model ids/**=id_c')).replaceAll('\\', '')).toBe('docextract watch ./in --model ids/**=id_card ');
      expect(requests.length - before).toBe(0);
    });

    it('completes folders where a command takes a folder, and files where it takes files', async () => {
      expect(await session.complete('docextract extract --out sca')).toBe('docextract extract --out scans-in/');
      expect(await session.complete('docextract extract scans.')).toBe('docextract extract scans.pdf ');
    });
  });
}
