import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileSendLog } from '../../../src/batch/send-log.js';
import { Journal } from '../../../src/store/journal.js';
import { acquireStateLock, stateLockHolder } from '../../../src/store/lock.js';
import { appendPrivateFile } from '../../../src/store/private-files.js';
import { preparePrivateStateDir, preparePrivateStateDirSync } from '../../../src/store/private-state-dir.js';
import { ResultsIndex } from '../../../src/store/results-index.js';
import { appendUsageLine } from '../../../src/store/usage-log.js';
import { writeLastRunReport } from '../../../src/store/last-run-report.js';
import { StateDirUnsafeError } from '../../../src/store/state-dir-unsafe-error.js';
import { FakeClock } from '../../helpers/fake-clock.js';

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'docextract-private-'));
}

function modeOf(path: string): string {
  return (statSync(path).mode & 0o777).toString(8);
}

/** A file outside the state folder that a planted link points at: it must stay as it is. */
function plantedTarget(dir: string): string {
  const target = join(dir, 'someone-elses.txt');
  writeFileSync(target, 'theirs\n');
  return target;
}

describe('the state folder is private', () => {
  it('is made 0700, and every file the store writes in it is 0600', async () => {
    const state = join(scratch(), 'state', 'docextract');
    await preparePrivateStateDir(state);
    expect(modeOf(state)).toBe('700');
    const clock = new FakeClock(1_700_000_000_000);
    const journal = await Journal.open<{ type: string }>(join(state, 'journal.ndjson'));
    await journal.append({ type: 'intent' });
    await journal.compact([{ type: 'intent' }]);
    await journal.close();
    const lock = await acquireStateLock(state, { clock });
    const log = new FileSendLog(join(state, 'sends-ab.log'), { keepMs: 60_000, clock });
    log.append(clock.now());
    const index = await ResultsIndex.open(join(state, 'results-ab.ndjson'));
    await index.set('question', '/out/a.json');
    await appendUsageLine(state, 'ab', { finished_at: new Date(clock.now()).toISOString() }, clock.now());
    await writeLastRunReport(state, 'ab', { started_at: '', finished_at: '', counts: {}, files: [] });
    for (const name of ['journal.ndjson', 'lock', 'sends-ab.log', 'results-ab.ndjson', 'usage-ab.ndjson', 'last-run-ab.json']) {
      expect(modeOf(join(state, name)), name).toBe('600');
    }
    await lock.release();
  });

  it('tightens a folder an older version left 0755, and the 0644 files in it', async () => {
    const state = join(scratch(), 'old');
    mkdirSync(state, { mode: 0o755 });
    chmodSync(state, 0o755);
    writeFileSync(join(state, 'journal.ndjson'), '', { mode: 0o644 });
    writeFileSync(join(state, 'last-run-ab.json'), '{}', { mode: 0o644 });
    await preparePrivateStateDir(state);
    expect(modeOf(state)).toBe('700');
    expect(modeOf(join(state, 'journal.ndjson'))).toBe('600');
    expect(modeOf(join(state, 'last-run-ab.json'))).toBe('600');
  });

  it.each([
    ['0777', 0o777],
    ['0775', 0o775],
    ['0757', 0o757],
  ])('refuses a folder others may write to (mode %s), naming it and the chmod that fixes it', async (_shown, mode) => {
    const state = join(scratch(), 'shared');
    mkdirSync(state);
    chmodSync(state, mode);
    for (const prepare of [() => preparePrivateStateDir(state), async () => preparePrivateStateDirSync(state), () => stateLockHolder(state)]) {
      const error = await prepare().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(StateDirUnsafeError);
      expect((error as StateDirUnsafeError).code).toBe('state_dir_unsafe');
      expect((error as Error).message).toContain(state);
      expect((error as Error).message).toContain(`chmod 700 ${state}`);
    }
    expect(modeOf(state)).toBe(mode.toString(8)); // refused, not quietly changed: someone may have planted files already
  });

  it.runIf(process.getuid?.() === 0)("refuses a folder of another user's, even a 0700 one", async () => {
    const state = join(scratch(), 'theirs');
    mkdirSync(state, { mode: 0o700 });
    chownSync(state, 65534, 65534);
    const error = await preparePrivateStateDir(state).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect((error as StateDirUnsafeError).code).toBe('state_dir_unsafe');
    expect((error as Error).message).toContain('belongs to another user (uid 65534)');
  });
});

describe('links in the state folder are refused, never followed', () => {
  it('a journal that is a link: the journal does not open, and the file it points at is untouched', async () => {
    const dir = scratch();
    const target = plantedTarget(dir);
    const state = join(dir, 'state');
    await preparePrivateStateDir(state);
    symlinkSync(target, join(state, 'journal.ndjson'));
    const error = await Journal.open(join(state, 'journal.ndjson')).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect((error as StateDirUnsafeError).code).toBe('state_dir_unsafe');
    expect((error as Error).message).toContain(`${join(state, 'journal.ndjson')} is a symbolic link`);
    expect(readFileSync(target, 'utf8')).toBe('theirs\n');
  });

  it.each([
    ['to a file', (dir: string) => plantedTarget(dir)],
    ['dangling', (dir: string) => join(dir, 'nowhere')],
  ])('a lock that is a link (%s) is refused by name, not taken over, not read through, not waited on', async (_what, targetIn) => {
    const dir = scratch();
    const target = targetIn(dir);
    const state = join(dir, 'state');
    await preparePrivateStateDir(state);
    symlinkSync(target, join(state, 'lock'));
    const before = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
    for (const take of [() => acquireStateLock(state, { clock: new FakeClock(0) }), () => stateLockHolder(state)]) {
      const error = await take().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect((error as StateDirUnsafeError).code).toBe('state_dir_unsafe');
      expect((error as Error).message).toContain(join(state, 'lock'));
    }
    expect(existsSync(target) ? readFileSync(target, 'utf8') : undefined).toBe(before);
  });

  it('appends (send log, results index, usage log) refuse a link and leave its target as it was', async () => {
    const dir = scratch();
    const target = plantedTarget(dir);
    const state = join(dir, 'state');
    await preparePrivateStateDir(state);
    const clock = new FakeClock(1_700_000_000_000);
    for (const name of ['sends-ab.log', 'results-ab.ndjson', 'usage-ab.ndjson', 'other.ndjson']) symlinkSync(target, join(state, name));
    const appends: [string, () => Promise<unknown>][] = [
      ['send log', async () => new FileSendLog(join(state, 'sends-ab.log'), { keepMs: 1_000, clock }).append(clock.now())],
      ['results index', async () => (await ResultsIndex.open(join(state, 'results-ab.ndjson'))).set('k', '/out/$(touch pwned).json')],
      ['usage log', () => appendUsageLine(state, 'ab', { finished_at: new Date(clock.now()).toISOString() }, clock.now())],
      ['any append', () => appendPrivateFile(join(state, 'other.ndjson'), '$(touch pwned)\n')],
    ];
    for (const [what, append] of appends) {
      const error = await append().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect((error as StateDirUnsafeError | undefined)?.code, what).toBe('state_dir_unsafe');
    }
    expect(readFileSync(target, 'utf8')).toBe('theirs\n');
  });
});
