import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../../src/store/journal.js';
import { appendPrivateFile, appendPrivateFileSync } from '../../../src/store/private-files.js';
import { preparePrivateStateDir } from '../../../src/store/private-state-dir.js';

/**
 * Issue 51: the state folder was checked when a command started, and never
 * again: a watch that runs for days went on writing into a folder swapped
 * under it since. Every write into it checks it again, just before.
 */
async function swappedStateDir(): Promise<{ state: string; planted: string }> {
  const root = mkdtempSync(join(tmpdir(), 'docextract-swapped-'));
  const state = join(root, 'state');
  await preparePrivateStateDir(state);
  return { state, planted: join(root, 'planted') };
}

/** The folder at `state` becomes one anyone may write to (a link to it, as a swap leaves). */
function swap(state: string, planted: string): void {
  mkdirSync(planted);
  chmodSync(planted, 0o777);
  renameSync(state, `${state}.was`);
  symlinkSync(planted, state);
}

describe('a state folder swapped under a running command is refused before each write (issue 51)', () => {
  it('an append (results index, send log) is refused with state_dir_unsafe, and nothing lands in the swapped folder', async () => {
    const { state, planted } = await swappedStateDir();
    await appendPrivateFile(join(state, 'results-a.ndjson'), 'before\n');
    swap(state, planted);
    await expect(appendPrivateFile(join(state, 'results-a.ndjson'), 'after\n')).rejects.toMatchObject({ code: 'state_dir_unsafe' });
    expect(() => appendPrivateFileSync(join(state, 'sent-a.log'), '1\n')).toThrow(expect.objectContaining({ code: 'state_dir_unsafe' }));
    expect(readdirSync(planted)).toEqual([]);
  });

  it('a journal opened before the swap neither rewrites nor reopens itself in the swapped folder', async () => {
    const { state, planted } = await swappedStateDir();
    const journal = await Journal.open<{ type: string }>(join(state, 'journal-a.ndjson'));
    await journal.append({ type: 'uploaded' });
    swap(state, planted);
    await expect(journal.compact([])).rejects.toMatchObject({ code: 'state_dir_unsafe' });
    expect(readdirSync(planted)).toEqual([]);
    expect(existsSync(join(`${state}.was`, 'journal-a.ndjson'))).toBe(true);
    await journal.close();
  });
});
