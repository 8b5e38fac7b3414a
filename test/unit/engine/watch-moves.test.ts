/**
 * What `watch --move-done / --move-failed` promises (README, "Moves"): a
 * source is never moved over an existing file (the first free
 * `name (n).ext` is taken), and only a final failure or a partial result
 * goes to --move-failed; rate limits, credits, the network and Ctrl-C leave
 * the source in place for the next start. Real files in a temporary folder.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocumentOutcome, DocumentStatus } from '../../../src/batch/batch-types.js';
import { moveMirrored, WatchMoves } from '../../../src/engine/watch-moves.js';

let dir: string;
let inbox: string;
let done: string;
let failed: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'watch-moves-'));
  inbox = join(dir, 'inbox');
  done = join(dir, 'done');
  failed = join(dir, 'failed');
  mkdirSync(inbox);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function put(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

function outcome(status: DocumentStatus, code?: string): DocumentOutcome {
  return {
    file: 'x',
    status,
    pages: 1,
    model: null,
    output: null,
    job_id: null,
    extraction_id: null,
    warnings: [],
    credits: 0,
    ...(code === undefined ? {} : { error: { code, message: code } }),
  } as DocumentOutcome;
}

describe('moveMirrored: never over an existing file', () => {
  it('takes name (2).ext, then name (3).ext, keeping every earlier file as it was', async () => {
    put(join(done, 'sub/scan.pdf'), 'earlier one');
    const second = await moveMirrored(put(join(inbox, 'sub/scan.pdf'), 'second'), inbox, done);
    const third = await moveMirrored(put(join(inbox, 'sub/scan.pdf'), 'third'), inbox, done);

    expect(second).toBe(join(done, 'sub/scan (2).pdf'));
    expect(third).toBe(join(done, 'sub/scan (3).pdf'));
    expect(readFileSync(join(done, 'sub/scan.pdf'), 'utf8')).toBe('earlier one');
    expect(readFileSync(second, 'utf8')).toBe('second');
    expect(readFileSync(third, 'utf8')).toBe('third');
    expect(readdirSync(join(inbox, 'sub'))).toEqual([]);
  });

  it('a gap is filled: with name (2).ext taken and name (3).ext free, the move takes (3)', async () => {
    put(join(done, 'a.jpg'), 'one');
    put(join(done, 'a (2).jpg'), 'two');
    const moved = await moveMirrored(put(join(inbox, 'a.jpg'), 'three'), inbox, done);
    expect(moved).toBe(join(done, 'a (3).jpg'));
    expect(readFileSync(join(done, 'a (2).jpg'), 'utf8')).toBe('two');
  });

  it('a name without an extension gets its number at the end', async () => {
    put(join(done, 'SCAN0001'), 'earlier');
    const moved = await moveMirrored(put(join(inbox, 'SCAN0001'), 'later'), inbox, done);
    expect(moved).toBe(join(done, 'SCAN0001 (2)'));
    expect(readFileSync(join(done, 'SCAN0001'), 'utf8')).toBe('earlier');
  });

  it('a dotfile is a name, not an extension: .profile (2); a dotfile with an extension keeps it: .scan (2).pdf', async () => {
    put(join(done, '.profile'), 'earlier');
    put(join(done, '.scan.pdf'), 'earlier pdf');
    const plain = await moveMirrored(put(join(inbox, '.profile'), 'later'), inbox, done);
    const withExtension = await moveMirrored(put(join(inbox, '.scan.pdf'), 'later pdf'), inbox, done);
    expect(plain).toBe(join(done, '.profile (2)'));
    expect(withExtension).toBe(join(done, '.scan (2).pdf'));
    expect(readFileSync(join(done, '.profile'), 'utf8')).toBe('earlier');
    expect(readFileSync(join(done, '.scan.pdf'), 'utf8')).toBe('earlier pdf');
  });

  it('a folder of the same name is not overwritten either: the file takes name (2).ext beside it', async () => {
    mkdirSync(join(done, 'odd.pdf'), { recursive: true });
    const moved = await moveMirrored(put(join(inbox, 'odd.pdf'), 'file'), inbox, done);
    expect(moved).toBe(join(done, 'odd (2).pdf'));
  });
});

describe('WatchMoves: which outcomes move their source, and where', () => {
  /** Each outcome for its own source; the moves drained: where each source ended up. */
  async function placeAfter(outcomes: Record<string, DocumentOutcome>): Promise<Record<string, 'inbox' | 'done' | 'failed'>> {
    const notices: string[] = [];
    const moves = new WatchMoves({ root: inbox, done, failed }, join(dir, 'out'), { notice: (message) => notices.push(message) });
    for (const [name, finished] of Object.entries(outcomes)) moves.finished({ ...finished, file: name }, put(join(inbox, name), name));
    await moves.drain();
    expect(notices).toEqual([]);
    const where = (name: string): 'inbox' | 'done' | 'failed' => {
      for (const [folder, kind] of [
        [inbox, 'inbox'],
        [done, 'done'],
        [failed, 'failed'],
      ] as const) {
        try {
          if (readFileSync(join(folder, name), 'utf8') === name) return kind;
        } catch {
          // not there
        }
      }
      throw new Error(`${name} is nowhere`);
    };
    return Object.fromEntries(Object.keys(outcomes).map((name) => [name, where(name)]));
  }

  it('a complete result moves to --move-done; a partial one and each final failure to --move-failed', async () => {
    expect(
      await placeAfter({
        'complete.pdf': outcome('complete'),
        'partial.pdf': outcome('partial', 'partial'),
        'not-a-document.pdf': outcome('failed', 'invalid_file_type'),
        'unreadable.pdf': outcome('failed', 'invalid_file'),
        'too-large.pdf': outcome('failed', 'file_too_large'),
        'too-many-pages.pdf': outcome('failed', 'page_limit_exceeded'),
        'not-extracted.pdf': outcome('failed', 'extraction_failed'),
      }),
    ).toEqual({
      'complete.pdf': 'done',
      'partial.pdf': 'failed',
      'not-a-document.pdf': 'failed',
      'unreadable.pdf': 'failed',
      'too-large.pdf': 'failed',
      'too-many-pages.pdf': 'failed',
      'not-extracted.pdf': 'failed',
    });
  });

  it('rate limits, credits, the network, a full disk and Ctrl-C leave the source in place, to be taken on the next start', async () => {
    expect(
      await placeAfter({
        'rate-limited.pdf': outcome('failed', 'rate_limit_exceeded'),
        'too-many-jobs.pdf': outcome('failed', 'too_many_open_jobs'),
        'no-credits.pdf': outcome('failed', 'insufficient_credits'),
        'network.pdf': outcome('failed', 'network_error'),
        'disk-full.pdf': outcome('failed', 'output_write_failed'),
        'server.pdf': outcome('failed', 'internal_error'),
        'ctrl-c.pdf': outcome('interrupted', 'interrupted'),
        'not-sent.pdf': outcome('skipped', 'max_credits_reached'),
        'interrupted-after-a-refusal.pdf': outcome('interrupted', 'extraction_failed'),
      }),
    ).toEqual({
      'rate-limited.pdf': 'inbox',
      'too-many-jobs.pdf': 'inbox',
      'no-credits.pdf': 'inbox',
      'network.pdf': 'inbox',
      'disk-full.pdf': 'inbox',
      'server.pdf': 'inbox',
      'ctrl-c.pdf': 'inbox',
      'not-sent.pdf': 'inbox',
      'interrupted-after-a-refusal.pdf': 'inbox',
    });
  });

  it('without the flags nothing moves, whatever the outcome', async () => {
    const moves = new WatchMoves({ root: inbox }, join(dir, 'out'), {});
    const source = put(join(inbox, 'a.pdf'), 'a');
    moves.finished(outcome('complete'), source);
    moves.finished(outcome('failed', 'invalid_file_type'), source);
    await moves.drain();
    expect(readFileSync(source, 'utf8')).toBe('a');
  });
});

describe('WatchMoves: what the moved source leaves behind', () => {
  it('once moved, the result names where its source went; a result naming another file is left as it was', async () => {
    const source = put(join(inbox, 'sub/scan.pdf'), 'scan');
    const other = put(join(inbox, 'other.pdf'), 'other');
    const output = put(
      join(dir, 'out/scan.pdf.json'),
      JSON.stringify({ status: 'complete', source: { path: source, sha256: 'a', size: 4, type: 'pdf', pages: 1 }, data: { total: 1 } }),
    );
    const foreign = put(
      join(dir, 'out/other.pdf.json'),
      JSON.stringify({ status: 'complete', source: { path: join(dir, 'elsewhere.pdf'), sha256: 'b', size: 5, type: 'pdf', pages: 1 } }),
    );
    const foreignBefore = readFileSync(foreign, 'utf8');
    const notices: string[] = [];
    const moves = new WatchMoves({ root: inbox, done, failed }, join(dir, 'out'), { notice: (message) => notices.push(message) });

    moves.finished({ ...outcome('complete'), file: 'sub/scan.pdf', output }, source);
    moves.finished({ ...outcome('complete'), file: 'other.pdf', output: foreign }, other);
    await moves.drain();

    const rewritten = JSON.parse(readFileSync(output, 'utf8')) as { source: { path: string; sha256: string }; data: unknown };
    // Named from the result's own folder, as every result names its source.
    expect(rewritten.source).toMatchObject({ path: relative(dirname(output), join(done, 'sub/scan.pdf')), sha256: 'a' });
    expect(rewritten.data).toEqual({ total: 1 });
    expect(readFileSync(foreign, 'utf8')).toBe(foreignBefore);
    expect(readFileSync(join(done, 'other.pdf'), 'utf8')).toBe('other');
    expect(notices).toEqual([]);
  });

  it('a result that is not on disk (yet) is not written: the move stands without a notice', async () => {
    const notices: string[] = [];
    const moves = new WatchMoves({ root: inbox, done, failed }, join(dir, 'out'), { notice: (message) => notices.push(message) });
    const output = join(dir, 'out/missing.pdf.json');
    moves.finished({ ...outcome('complete'), file: 'missing.pdf', output }, put(join(inbox, 'missing.pdf'), 'missing'));
    await moves.drain();

    expect(readFileSync(join(done, 'missing.pdf'), 'utf8')).toBe('missing');
    expect(() => readFileSync(output)).toThrow();
    expect(notices).toEqual([]);
  });

  it('a source that cannot be moved stays, with a notice naming it, the folder and the reason; the moves after it still happen', async () => {
    const notices: string[] = [];
    const moves = new WatchMoves({ root: inbox, done, failed }, join(dir, 'out'), { notice: (message) => notices.push(message) });
    moves.finished({ ...outcome('failed', 'invalid_file'), file: 'gone.pdf' }, join(inbox, 'gone.pdf'));
    moves.finished({ ...outcome('complete'), file: 'next.pdf' }, put(join(inbox, 'next.pdf'), 'next'));
    await moves.drain();

    expect(notices).toEqual([`gone.pdf: could not move it to ${failed} (ENOENT); it stays where it is`]);
    expect(readFileSync(join(done, 'next.pdf'), 'utf8')).toBe('next');
  });
});
