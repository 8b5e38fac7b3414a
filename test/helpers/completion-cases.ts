import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { COMPLETION_TYPES_FILE } from '../../src/config/state-dir.js';
import type { EmulatorRequestLog, RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator } from './emulator-run.js';
import { keepOpenJobsJournal } from './open-jobs-journal.js';
import { runCli } from './run-cli.js';
import { ShellSession, type ShellName } from './shell-driver.js';

/** Bash lists the candidates on a second Tab; zsh and fish on the first (a second would pick one). */
const LISTING_TABS: Record<ShellName, number> = { bash: 2, zsh: 1, fish: 1 };

// eslint-disable-next-line no-control-regex -- the terminal's escape sequences, stripped from a listing
const TERMINAL_ESCAPES = /\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\x1b[=>]/g;

/**
 * The completion a person gets in `shell` after loading the script as the
 * README says: real command lines typed into the real shell's line editor,
 * Tab pressed, the line read back. Document types come from the `models`
 * answer kept by an earlier `docextract models`; no Tab sends a request, and
 * none starts a process: the shell starts `docextract` once, to print the script.
 */
export function shellCompletionSuite(shell: ShellName): void {
  describe(`completion in ${shell}`, () => {
    let emulator: RunningEmulator;
    let session: ShellSession;
    const requests: EmulatorRequestLog[] = [];
    let folder: string;
    let typesFile: string;
    let stateDir: string;
    let shellEnv: NodeJS.ProcessEnv;

    beforeAll(async () => {
      emulator = await startTestEmulator({ onRequest: (entry) => requests.push(entry) });
      const env = emulatorEnv(emulator);
      stateDir = env.DOCEXTRACT_STATE_DIR as string;
      shellEnv = env;
      const models = await runCli(['models'], { env });
      expect(models.code, models.stderr).toBe(0);
      expect(requests.map((request) => request.endpoint)).toEqual(['models']);
      folder = mkdtempSync(join(tmpdir(), 'docextract-complete-'));
      typesFile = join(env.DOCEXTRACT_STATE_DIR as string, COMPLETION_TYPES_FILE);
      expect(readFileSync(typesFile, 'utf8')).toContain('invoice\t');
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
      // An answer with nothing in it leaves the line as typed too: the listing shows that both were offered.
      const from = session.printed;
      expect(await session.complete('docextract ex', LISTING_TABS[shell])).toBe('docextract ex');
      const listing = session.printedSince(from).replace(TERMINAL_ESCAPES, '');
      expect(listing).toMatch(/\bexport\b/);
      expect(listing).toMatch(/\bextract\b/);
    });

    it('offers the document types of the last models answer, alone or after GLOB=, and sends nothing', async () => {
      const before = requests.length;
      expect(await session.complete('docextract extract --model inv')).toBe('docextract extract --model invoice ');
      expect(await session.complete('docextract extract --model=inv')).toBe('docextract extract --model=invoice ');
      // zsh quotes the glob it puts back (ids/\*\*=id_card): the same word once the shell has read it.
      expect((await session.complete('docextract watch ./in --model ids/**=id_c')).replaceAll('\\', '')).toBe('docextract watch ./in --model ids/**=id_card ');
      expect(requests.length - before).toBe(0);
    });

    it("offers a flag's choices, from the option itself: export --format, usage --by (issue 55)", async () => {
      expect(await session.complete('docextract export ./out --format xl')).toBe('docextract export ./out --format xlsx ');
      expect(await session.complete('docextract export ./out --format=nd')).toBe('docextract export ./out --format=ndjson ');
      expect(await session.complete('docextract usage --by we')).toBe('docextract usage --by week ');
      const from = session.printed;
      expect(await session.complete('docextract usage --by mo', LISTING_TABS[shell])).toBe('docextract usage --by mo');
      const listing = session.printedSince(from).replace(TERMINAL_ESCAPES, '');
      expect(listing).toMatch(/\bmonth\b/);
      expect(listing).toMatch(/\bmodel\b/);
    });

    it('offers the open job ids of the journal after collect, and sends nothing (issue 55)', async () => {
      keepOpenJobsJournal(stateDir, Date.now());
      const before = requests.length;
      expect(await session.complete('docextract collect job_n')).toBe('docextract collect job_named_badly ');
      const from = session.printed;
      expect(await session.complete('docextract collect job_', LISTING_TABS[shell])).toBe('docextract collect job_');
      const listing = session.printedSince(from).replace(TERMINAL_ESCAPES, '');
      for (const id of ['job_open_a', 'job_open_b', 'job_named_badly']) expect(listing).toContain(id);
      for (const id of ['job_finalized', 'job_closed', 'job_planted']) expect(listing).not.toContain(id);
      if (shell !== 'fish') expect(listing).not.toContain('job_expired'); // fish has no clock without starting a process
      expect(requests.length - before).toBe(0);
    });

    it('offers the profiles of the config file after --profile, and default (issue 55)', async () => {
      const set = await runCli(['--profile', 'work-eu', 'config', 'set', 'concurrency', '4'], { env: shellEnv });
      expect(set.code, set.stderr).toBe(0);
      expect(await session.complete('docextract --profile wor')).toBe('docextract --profile work-eu ');
      expect(await session.complete('docextract extract --profile=de')).toBe('docextract extract --profile=default ');
    });

    it('offers every choice of export --format after the flag (issue 55)', async () => {
      const from = session.printed;
      expect(await session.complete('docextract export ./out --format ', LISTING_TABS[shell])).toBe('docextract export ./out --format ');
      const listing = session.printedSince(from).replace(TERMINAL_ESCAPES, '');
      for (const format of ['csv', 'xlsx', 'ndjson']) expect(listing).toMatch(new RegExp(`\\b${format}\\b`));
    });

    it('completes folders where a command takes a folder, and files where it takes files', async () => {
      expect(await session.complete('docextract extract --out sca')).toBe('docextract extract --out scans-in/');
      expect(await session.complete('docextract export ./out -o sca')).toBe('docextract export ./out -o scans-in/');
      expect(await session.complete('docextract extract scans.')).toBe('docextract extract scans.pdf ');
      expect(await session.complete('docextract extract --schema invoice=scans.')).toBe('docextract extract --schema invoice=scans.pdf ');
    });

    it('leaves out a kept document type that is not one plain word, and runs nothing it holds', async () => {
      // Written as an older or tampered file could hold them: the CLI itself never writes such a name.
      const marker = join(folder, 'ran');
      writeFileSync(typesFile, ['inv$(touch ran)', 'inv`touch ran`', 'inv;touch ran', `inv'$(touch ran)'`, 'invoice'].map((name) => `${name}\tx\n`).join(''));
      expect(await session.complete('docextract extract --model inv')).toBe('docextract extract --model invoice ');
      expect(existsSync(marker)).toBe(false);
    });

    // Each test's Tabs are done by now: the shell started `docextract` once, to print the script.
    afterEach(() => {
      expect(session.started()).toEqual([`docextract completion ${shell}`]);
    });
  });
}
