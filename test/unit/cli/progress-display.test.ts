import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DocumentOutcome, PlannedDocument } from '../../../src/batch/batch-types.js';
import { CliContext } from '../../../src/cli/context.js';
import type { CliIO, OutputStream } from '../../../src/cli/io.js';
import { BatchDisplay } from '../../../src/cli/progress.js';
import { withSpinner } from '../../../src/cli/spinner.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { FakeTty, PipeStream } from '../../helpers/fake-tty.js';

const T0 = 1_700_000_000_000;

/** The wall-clock time a person reads in a wait line (local time, as the display shows it). */
function localTime(ms: number, seconds = false): string {
  const at = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${pad(at.getHours())}:${pad(at.getMinutes())}${seconds ? `:${pad(at.getSeconds())}` : ''}`;
}
/** cli-progress and ora draw on timers (10 redraws a second, a spinner frame every 80 ms): fake those, not the batch clock. */
const DRAWING_TIMERS: Parameters<typeof vi.useFakeTimers>[0] = { toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] };

interface Setup {
  stdout?: OutputStream;
  stderr?: OutputStream;
  env?: NodeJS.ProcessEnv;
  json?: boolean;
  quiet?: boolean;
  color?: boolean;
  verbose?: boolean;
}

function context(
  { stdout = new PipeStream(), stderr = new PipeStream(), env = {}, json = false, quiet = false, color = false, verbose = false }: Setup,
  clock = new FakeClock(T0),
): CliContext {
  const io: CliIO = { stdout, stderr, stdin: Readable.from([]) as CliIO['stdin'], env, cwd: '/work' };
  return new CliContext({ io, clock, args: [] }, { json, quiet, color, debug: false, insecure: false, verbose });
}

function doc(displayPath: string, pages: number | undefined): PlannedDocument {
  return {
    path: `/work/${displayPath}`,
    displayPath,
    sha256: displayPath,
    size: 1,
    type: 'pdf',
    contentType: 'application/pdf',
    pages,
    output: `out/${displayPath}.json`,
  };
}

function outcome(file: string, status: DocumentOutcome['status'], extra: Partial<DocumentOutcome> = {}): DocumentOutcome {
  return { file, status, pages: null, model: null, output: null, job_id: null, extraction_id: null, warnings: [], credits: 0, ...extra };
}

afterEach(() => {
  vi.useRealTimers();
});

const BAR = 40;
const bar = (filled: number): string => '█'.repeat(filled) + '░'.repeat(BAR - filled);
const ESC = '\u001b';

/** The same run seen through any setup: a split file, a wait for the rate limit, three results, the summary at 1 min 5 s. */
async function playRun(ctx: CliContext, clock: FakeClock, marks: { during?: () => void } = {}): Promise<void> {
  const display = await BatchDisplay.create(ctx, 3);
  const big = doc('invoices/big.pdf', 9);
  display.documentStarted(big, 3);
  display.requestSent();
  display.creditsCharged(3);
  display.chunkDone(big, 1);
  display.waiting(T0 + 42_000, 'rate limit');
  vi.advanceTimersByTime(100);
  marks.during?.();
  display.documentFinished(outcome('a.png', 'complete', { pages: 1, output: 'out/a.png.json', credits: 1 }));
  display.chunkDone(big, 3);
  display.documentFinished(outcome('invoices/big.pdf', 'complete', { pages: 9, output: 'out/big.json', credits: 9 }));
  display.documentFinished(outcome('c.pdf', 'failed', { error: { code: 'invalid_file', message: 'not a PDF' } }));
  await clock.advance(65_000);
  display.finish({ requests: 7, credits: 10 }, T0);
}

const SUMMARY = '2 complete, 0 partial, 1 failed · 10 pages · 10 credits · 7 requests · 1m 05s';

describe('the batch display on a terminal', () => {
  it('a message said while the bars draw (a warning, the Ctrl-C notice) goes above them, whole, and the bars stay whole', async () => {
    vi.useFakeTimers(DRAWING_TIMERS);
    const clock = new FakeClock(T0);
    const tty = new FakeTty(120);
    const ctx = context({ stdout: tty, stderr: tty }, clock);
    let during = 0;
    await playRun(ctx, clock, {
      during: () => {
        ctx.ui.warn('X-RateLimit-Reset 1795484371 cannot be a reset of any rate window: ignored');
        ctx.ui.error('SIGINT: finishing the requests in flight and saving; press Ctrl-C again to exit at once.');
        vi.advanceTimersByTime(100);
        during = tty.mark();
      },
    });
    vi.useRealTimers();
    const screen = await tty.screen(during);
    expect(screen.slice(0, 2)).toEqual([
      'warning: X-RateLimit-Reset 1795484371 cannot be a reset of any rate window: ignored',
      'SIGINT: finishing the requests in flight and saving; press Ctrl-C again to exit at once.',
    ]);
    // No message is drawn into a bar's line.
    expect(screen.filter((line) => /warning:|SIGINT/.test(line) && line.includes('░'))).toEqual([]);
  });

  it.each([80, 100])(
    'at %i columns a finished line longer than the terminal is written whole above the bars, coloured or with wide characters, and no bar is drawn into it',
    async (columns) => {
      vi.useFakeTimers(DRAWING_TIMERS);
      const clock = new FakeClock(T0);
      const tty = new FakeTty(columns, 40);
      const ctx = context({ stdout: tty, stderr: tty, color: true }, clock);
      const display = await BatchDisplay.create(ctx, 4);
      const names = [
        'sub/a-considerably-longer-name-of-a-thirty-page-statement-from-the-bank-1.pdf',
        'sub/long-030.pdf',
        'sub/請求書-二〇二四年-第三四半期-株式会社サンプル-東京本社-経理部.pdf',
        'sub/long-031.pdf',
      ];
      for (const name of names) display.documentStarted(doc(name, 30), 10);
      vi.advanceTimersByTime(100);
      for (const name of names) {
        display.chunkDone(doc(name, 30), 10);
        vi.advanceTimersByTime(100);
        display.documentFinished(outcome(name, 'complete', { pages: 30, output: `/tmp/out/${name}.json`, credits: 30 }));
        vi.advanceTimersByTime(100);
      }
      const during = tty.mark();
      vi.useRealTimers();
      const screen = await tty.screen(during);
      const logRows = screen.slice(
        0,
        screen.findIndex((row) => row.startsWith('files ')),
      );
      // Every row of the log is the log's: no bar, no piece of one.
      expect(logRows.filter((row) => /[█░]|chunks ·/.test(row))).toEqual([]);
      // Each line whole, in order (compared without spaces: a break is made at a space, or inside a word that has none).
      const unspaced = (text: string): string => text.replace(/\s+/g, '');
      expect(unspaced(logRows.join(''))).toBe(unspaced(names.map((name) => `complete ${name} -> /tmp/out/${name}.json (30 pages)`).join('')));
    },
  );

  it('a line that would sit still says what it waits for: the answers of the requests in flight', async () => {
    vi.useFakeTimers(DRAWING_TIMERS);
    const clock = new FakeClock(T0);
    const tty = new FakeTty(120);
    const display = await BatchDisplay.create(context({ stdout: tty, stderr: tty }, clock), 2);
    display.requestSent();
    display.requestSent();
    vi.advanceTimersByTime(100);
    const two = tty.mark();
    display.requestAnswered();
    vi.advanceTimersByTime(100);
    const one = tty.mark();
    display.finish({ requests: 2, credits: 0 }, T0);
    vi.useRealTimers();
    expect((await tty.screen(two))[0]).toContain('awaiting 2 answers');
    expect((await tty.screen(one))[0]).toContain('awaiting 1 answer');
  });

  it('after Ctrl-C the bar counts only the files done, not the ones left open', async () => {
    vi.useFakeTimers(DRAWING_TIMERS);
    const clock = new FakeClock(T0);
    const tty = new FakeTty(120);
    const display = await BatchDisplay.create(context({ stdout: tty, stderr: tty }, clock), 3);
    display.documentFinished(outcome('a.png', 'complete', { pages: 1, output: 'out/a.png.json', credits: 1 }));
    display.documentFinished(outcome('b.pdf', 'interrupted', { error: { code: 'interrupted', message: 'job job_b is open' } }));
    display.documentFinished(outcome('c.pdf', 'interrupted', { error: { code: 'interrupted', message: 'job job_c is open' } }));
    vi.advanceTimersByTime(100);
    const last = tty.mark();
    display.finish({ requests: 3, credits: 1 }, T0);
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();
    const files = (await tty.screen(last)).find((line) => line.startsWith('files'));
    expect(files).toMatch(/ 1\/3 /);
  });

  it.each([
    [60, 12, '0/3 · rate limit; next slot in 42s'],
    [80, 24, '0/3 · rate limit; next slot in 42s'],
  ])('at %i columns the bar narrows to %i and the line keeps what matters, whole, without wrapping', async (columns, barWidth, tail) => {
    vi.useFakeTimers(DRAWING_TIMERS);
    const clock = new FakeClock(T0);
    const tty = new FakeTty(columns);
    let during = 0;
    await playRun(context({ stdout: tty, stderr: tty }, clock), clock, { during: () => (during = tty.mark()) });
    vi.useRealTimers();
    const [files] = await tty.screen(during);
    expect(files).toBe(`files     ${'░'.repeat(barWidth)} ${tail}`);
    expect(files?.length).toBeLessThanOrEqual(columns);
  });

  it('shows a bar for the files and one per split file, the wait for the next slot, then the results above the bars and the summary', async () => {
    vi.useFakeTimers(DRAWING_TIMERS);
    const clock = new FakeClock(T0);
    // Results (stdout) and progress (stderr) share the one screen, as they do in a terminal.
    const tty = new FakeTty(120);
    let during = 0;
    await playRun(context({ stdout: tty, stderr: tty }, clock), clock, { during: () => (during = tty.mark()) });
    expect(vi.getTimerCount()).toBe(0); // nothing left redrawing
    vi.useRealTimers();

    const [files, chunks, ...rest] = await tty.screen(during);
    expect(files).toMatch(new RegExp(`^files {5}${bar(0)} 0/3 `));
    // Laid out by priority for 120 columns: the wait, whole with its reason, before the request count.
    expect(files).toBe(`files     ${bar(0)} 0/3 · 0 pages · 3 credits · 1 request · rate limit; next slot in 42s`);
    expect(chunks).toMatch(new RegExp(`^invoices/big\\.pdf ${bar(13)} 1/3 chunks · 9 pages`));
    expect(rest).toEqual([]);

    const after = await tty.screen();
    expect(after.slice(0, 3)).toEqual([
      'complete  a.png -> out/a.png.json (1 page)',
      'complete  invoices/big.pdf -> out/big.json (9 pages)',
      'failed    c.pdf: not a PDF (invalid_file)',
    ]);
    // The bars are gone, their last frame too (issue 55): the summary follows the results.
    expect(after.slice(3)).toEqual([SUMMARY]);
    // The cursor is hidden while the bars draw, and given back.
    expect(tty.raw.startsWith(`${ESC}[?25l`)).toBe(true);
    expect(tty.raw).toContain(`${ESC}[?25h`);
  });

  it('colours the status of each result, unless NO_COLOR or --no-color', async () => {
    for (const [setup, coloured] of [
      [{ color: true }, true],
      [{ color: true, env: { NO_COLOR: '1' } }, false],
      [{ color: false }, false],
    ] as const) {
      vi.useFakeTimers(DRAWING_TIMERS);
      const clock = new FakeClock(T0);
      const tty = new FakeTty(120);
      await playRun(context({ stdout: tty, stderr: tty, ...setup }, clock), clock);
      vi.useRealTimers();
      expect(tty.raw.includes(`${ESC}[32mcomplete${ESC}[39m`), JSON.stringify(setup)).toBe(coloured);
      expect(tty.raw.includes(`${ESC}[31mfailed  ${ESC}[39m`), JSON.stringify(setup)).toBe(coloured);
      expect(tty.raw.includes(`${ESC}[3`), JSON.stringify(setup)).toBe(coloured);
    }
  });

  it('says how many job slots others hold and when the next probe goes', async () => {
    vi.useFakeTimers(DRAWING_TIMERS);
    const clock = new FakeClock(T0);
    const tty = new FakeTty(160);
    const display = await BatchDisplay.create(context({ stdout: tty, stderr: tty }, clock), 1);
    display.slotsHeld(2, T0 + 60_000);
    vi.advanceTimersByTime(100);
    const held = tty.mark();
    display.finish({ requests: 0, credits: 0 }, T0);
    vi.useRealTimers();
    expect((await tty.screen(held))[0]).toContain('· 2 job slots held by others; next try in 1m 00s');
  });
});

// Issue 55: the bars' last frame stayed on screen among the summary lines after an interruption.
describe('the last frame of the bars is cleared on every way out', () => {
  const barLines = (screen: string[]): string[] => screen.filter((line) => /[█░]/.test(line));

  async function drawnRun(): Promise<{ tty: FakeTty; ctx: CliContext; display: BatchDisplay; clock: FakeClock }> {
    vi.useFakeTimers(DRAWING_TIMERS);
    const clock = new FakeClock(T0);
    const tty = new FakeTty(120);
    const ctx = context({ stdout: tty, stderr: tty }, clock);
    const display = await BatchDisplay.create(ctx, 3);
    display.documentStarted(doc('invoices/big.pdf', 9), 3);
    display.documentFinished(outcome('a.png', 'complete', { pages: 1, output: 'out/a.png.json', credits: 1 }));
    vi.advanceTimersByTime(100);
    return { tty, ctx, display, clock };
  }

  it('done: the summary follows the results, no bar above or below it', async () => {
    const { tty, display } = await drawnRun();
    display.documentFinished(outcome('invoices/big.pdf', 'complete', { pages: 9, output: 'out/big.json', credits: 9 }));
    display.documentFinished(outcome('c.pdf', 'complete', { pages: 1, output: 'out/c.json', credits: 1 }));
    display.finish({ requests: 3, credits: 11 }, T0);
    vi.useRealTimers();
    const screen = await tty.screen();
    expect(barLines(screen)).toEqual([]);
    expect(screen.at(-1)).toMatch(/^3 complete, /);
  });

  it('Ctrl-C: the notice and the interrupted files stay, the bars go before the summary', async () => {
    const { tty, ctx, display } = await drawnRun();
    ctx.ui.error('SIGINT: finishing the requests in flight and saving; press Ctrl-C again to exit at once.');
    display.documentFinished(outcome('invoices/big.pdf', 'interrupted', { error: { code: 'interrupted', message: 'job job_b is open' } }));
    display.documentFinished(outcome('c.pdf', 'interrupted', { error: { code: 'interrupted', message: 'never started' } }));
    vi.advanceTimersByTime(100);
    expect(barLines(await screenNow(tty))).not.toEqual([]);
    display.finish({ requests: 1, credits: 1 }, T0);
    vi.useRealTimers();
    const screen = await tty.screen();
    expect(barLines(screen)).toEqual([]);
    expect(screen.join('\n')).toContain('SIGINT: finishing');
    expect(screen.at(-1)).toMatch(/^1 complete, .*interrupted/);
  });

  it('an error or a second Ctrl-C (no summary): the bars are cleared before the words that end the run', async () => {
    for (const last of ['error: the service refused the key (unauthorized)', 'second interrupt: exiting now; run the same command again to resume.']) {
      const { tty, ctx, display } = await drawnRun();
      display.clear();
      // Said as main and watchInterrupts say them, once the display has let go of stderr.
      if (last.startsWith('error')) ctx.io.stderr.write(`${last}\n`);
      else ctx.ui.error(last);
      expect(vi.getTimerCount()).toBe(0); // nothing left to redraw a bar over them
      vi.useRealTimers();
      const screen = await tty.screen();
      expect(barLines(screen)).toEqual([]);
      expect(screen).toEqual(['complete  a.png -> out/a.png.json (1 page)', last]);
    }
  });
});

/** The screen as it is now, read with real timers (xterm parses on them), fake ones given back after. */
async function screenNow(tty: FakeTty): Promise<string[]> {
  const mark = tty.mark();
  vi.useRealTimers();
  const screen = await tty.screen(mark);
  vi.useFakeTimers(DRAWING_TIMERS);
  return screen;
}

describe('the batch display off a terminal', () => {
  it('prints one line per finished file on stdout, and the split, the wait and the summary as plain lines on stderr', async () => {
    vi.useFakeTimers(DRAWING_TIMERS);
    const clock = new FakeClock(T0);
    const stdout = new PipeStream();
    const stderr = new PipeStream();
    await playRun(context({ stdout, stderr }, clock), clock);
    expect(vi.getTimerCount()).toBe(0);
    expect(stdout.text).toBe(
      '[1/3] complete  a.png -> out/a.png.json (1 page)\n' +
        '[2/3] complete  invoices/big.pdf -> out/big.json (9 pages)\n' +
        '[3/3] failed    c.pdf: not a PDF (invalid_file)\n',
    );
    expect(stderr.text).toBe(
      `invoices/big.pdf: split into 3 chunks (9 pages)\nwaiting: rate limit; next request slot ${localTime(T0 + 42_000, true)} (in 42s)\n` + `${SUMMARY}\n`,
    );
  });

  it('words partial, reused, skipped and interrupted files, and counts them in the summary', async () => {
    const clock = new FakeClock(T0);
    const stdout = new PipeStream();
    const stderr = new PipeStream();
    const display = await BatchDisplay.create(context({ stdout, stderr }, clock), 4);
    display.documentFinished(outcome('b.pdf', 'partial', { pages: 6, output: 'out/b.json', missing_pages: [2, 4, 5] }));
    display.documentFinished(outcome('d.pdf', 'complete', { pages: 2, output: 'out/d.json', reused: 'same content, model and store_db', saved_credits: 2 }));
    display.documentFinished(outcome('e.png', 'skipped', { error: { code: 'budget_exhausted', message: '--max-credits reached' } }));
    display.documentFinished(outcome('f.pdf', 'interrupted', { error: { code: 'interrupted', message: 'not started', details: { kind: 'not_started' } } }));
    display.finish({ requests: 3, credits: 4 }, T0);
    expect(stdout.text.split('\n')).toEqual([
      '[1/4] partial   b.pdf -> out/b.json (missing pages 2, 4-5)',
      '[2/4] complete  d.pdf -> out/d.json (2 pages; reused: same content, model and store_db)',
      '[3/4] skipped   e.png: --max-credits reached (budget_exhausted)',
      // Nothing of it was sent (no job): said with the others like it, once, at the end.
      'interrupted  1 file not started: nothing of it was sent; run the same command again to take it (--verbose or --json lists each)',
      '',
    ]);
    expect(stderr.text).toBe('1 complete, 1 partial, 0 failed, 1 skipped, 1 interrupted, 1 reused (2 credits saved) · 8 pages · 4 credits · 3 requests · 0s\n');
  });

  it('lists under --verbose each file a Ctrl-C left unstarted, below the one line that counts them (names rendered)', async () => {
    const stdout = new PipeStream();
    const display = await BatchDisplay.create(context({ stdout, verbose: true }), 3);
    const notStarted = { error: { code: 'interrupted', message: 'not started', details: { kind: 'not_started' as const } } };
    display.documentFinished(outcome('a.pdf', 'complete', { pages: 1, output: 'out/a.json' }));
    display.documentFinished(outcome('b.pdf', 'interrupted', notStarted));
    display.documentFinished(outcome('evil\n[3/3] complete.pdf', 'interrupted', notStarted));
    display.finish({ requests: 1, credits: 1 }, T0);
    expect(stdout.text.split('\n')).toEqual([
      '[1/3] complete  a.pdf -> out/a.json (1 page)',
      'interrupted  2 files not started: nothing of them was sent; run the same command again to take them',
      '  b.pdf',
      '  evil\\n[3/3] complete.pdf',
      '',
    ]);
  });

  it('keeps its own line for an interrupted file that is not marked as never started (a job is open)', async () => {
    const stdout = new PipeStream();
    const display = await BatchDisplay.create(context({ stdout }), 1);
    display.documentFinished(outcome('f.pdf', 'interrupted', { error: { code: 'interrupted', message: 'stopped by Ctrl-C' } }));
    display.finish({ requests: 1, credits: 0 }, T0);
    expect(stdout.text).toBe('[1/1] interrupted  f.pdf: stopped by Ctrl-C (interrupted)\n');
  });

  it('says a long wait at most every 30 s, and a short one not at all', async () => {
    const clock = new FakeClock(T0);
    const stderr = new PipeStream();
    const display = await BatchDisplay.create(context({ stderr }, clock), 1);
    display.waiting(T0 + 4_999, 'rate limit');
    display.waiting(T0 + 90_000, 'rate limit');
    await clock.advance(29_999);
    display.waiting(T0 + 90_000, 'rate limit');
    await clock.advance(1);
    display.waiting(T0 + 90_000, 'open-job cap');
    expect(stderr.text).toBe(
      `waiting: rate limit; next request slot ${localTime(T0 + 90_000)} (in 1m 30s)\nwaiting: open-job cap; next request slot ${localTime(T0 + 90_000)} (in 1m 00s)\n`,
    );
  });
});

describe('nothing animates off a terminal, under CI, --quiet or --json', () => {
  it.each([
    ['stderr is a pipe', { stderr: new PipeStream() }],
    ['CI=true', { stderr: new FakeTty(), env: { CI: 'true' } }],
    ['--quiet', { stderr: new FakeTty(), quiet: true }],
    ['--json', { stderr: new FakeTty(), json: true }],
  ] as const)('%s: no escape sequence, no timer left', async (_name, setup) => {
    vi.useFakeTimers(DRAWING_TIMERS);
    const clock = new FakeClock(T0);
    const stdout = new PipeStream();
    const ctx = context({ ...setup, stdout }, clock);
    await playRun(ctx, clock);
    const spun = await withSpinner(
      ctx,
      'finding files',
      () => Promise.resolve(3),
      (n) => `${n} files ready`,
    );
    expect(spun).toBe(3);
    vi.advanceTimersByTime(1_000);
    expect(vi.getTimerCount()).toBe(0);
    const stderr = setup.stderr instanceof FakeTty ? setup.stderr.raw : setup.stderr.text;
    expect(stderr).not.toContain(ESC);
    expect(stdout.text).not.toContain(ESC);
  });

  it('--quiet keeps only the results; --json prints one JSON object per file on stdout and nothing else', async () => {
    vi.useFakeTimers(DRAWING_TIMERS);
    const clock = new FakeClock(T0);
    const quiet = { stdout: new PipeStream(), stderr: new FakeTty() };
    await playRun(context({ ...quiet, quiet: true }, clock), clock);
    expect(quiet.stderr.raw).toBe('');
    expect(quiet.stdout.text.split('\n')).toHaveLength(4);

    const json = { stdout: new PipeStream(), stderr: new FakeTty() };
    const jsonClock = new FakeClock(T0);
    await playRun(context({ ...json, json: true }, jsonClock), jsonClock);
    const lines = json.stdout.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as DocumentOutcome);
    expect(lines.map((line) => [line.file, line.status])).toEqual([
      ['a.png', 'complete'],
      ['invoices/big.pdf', 'complete'],
      ['c.pdf', 'failed'],
    ]);
    expect(json.stderr.raw).toBe(
      `invoices/big.pdf: split into 3 chunks (9 pages)\nwaiting: rate limit; next request slot ${localTime(T0 + 42_000, true)} (in 42s)\n` + `${SUMMARY}\n`,
    );
  });
});

describe('the spinner', () => {
  it('on a terminal: one animated line while the work runs, replaced by the summary with a tick', async () => {
    vi.useFakeTimers(DRAWING_TIMERS);
    const tty = new FakeTty();
    let finishWork!: (files: number) => void;
    let workStarted!: () => void;
    const started = new Promise<void>((resolve) => (workStarted = resolve));
    const work = (): Promise<number> => {
      workStarted();
      return new Promise<number>((resolve) => (finishWork = resolve));
    };
    const running = withSpinner(context({ stderr: tty }), 'finding and checking files', work, (n) => `${n} files ready`);
    await started; // ora is loaded on first use
    const first = tty.mark();
    await vi.advanceTimersByTimeAsync(80);
    const second = tty.mark();
    finishWork(3);
    expect(await running).toBe(3);
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();

    const [frame1] = await tty.screen(first);
    const [frame2] = await tty.screen(second);
    expect(frame1).toMatch(/^\S finding and checking files$/);
    expect(frame2).toMatch(/^\S finding and checking files$/);
    expect(frame2).not.toBe(frame1);
    expect(await tty.screen()).toEqual([expect.stringMatching(/^[✔√] 3 files ready$/)]);
    expect(tty.raw).toContain(`${ESC}[?25h`);
  });

  it('on a terminal: nothing to do is a warning, not a green tick', async () => {
    vi.useFakeTimers(DRAWING_TIMERS);
    const tty = new FakeTty();
    expect(
      await withSpinner(
        context({ stderr: tty }),
        'finding files',
        () => Promise.resolve(0),
        (n) => `${n} files ready`,
        (n) => n > 0,
      ),
    ).toBe(0);
    vi.useRealTimers();
    const [line] = await tty.screen();
    expect(line).toMatch(/^[⚠‼] 0 files ready$/);
    expect(line).not.toMatch(/[✔√]/);
  });

  it('on a terminal: a failure clears the line and goes on to the caller', async () => {
    vi.useFakeTimers(DRAWING_TIMERS);
    const tty = new FakeTty();
    const failing = withSpinner(
      context({ stderr: tty }),
      'finding files',
      () => Promise.reject(new Error('unreadable folder')),
      () => 'never',
    );
    await expect(failing).rejects.toThrow('unreadable folder');
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();
    expect(await tty.screen()).toEqual([]);
  });
});

/** A terminal that gives no width, with a budget of bytes: an endless redraw fails the test instead of filling the memory. */
function widthlessTty(columns: 0 | undefined, budget = 64 * 1024): FakeTty {
  const tty = new FakeTty();
  // The width as a real tty reports it (0 for a pty nobody sized), or none at all.
  Object.defineProperty(tty, 'columns', { value: columns });
  const write = tty.write;
  tty.write = (chunk, ...rest) => {
    if (tty.raw.length > budget) throw new Error(`more than ${budget} bytes written to a terminal of ${String(columns)} columns`);
    return write(chunk, ...rest);
  };
  return tty;
}

describe('a terminal with no width', () => {
  it.each([0, undefined] as const)('columns %s: plain lines, no cursor movement, a bounded output however long the run waits', async (columns) => {
    vi.useFakeTimers(DRAWING_TIMERS);
    const clock = new FakeClock(T0);
    const tty = widthlessTty(columns);
    const ctx = context({ stdout: tty, stderr: tty }, clock);
    let finishWork!: (files: number) => void;
    const spinning = withSpinner(
      ctx,
      'finding and checking files',
      () => new Promise<number>((resolve) => (finishWork = resolve)),
      (n) => `${n} files ready`,
    );
    // Ten minutes of spinner frames and bar redraws, had they been drawn.
    await vi.advanceTimersByTimeAsync(600_000);
    finishWork(3);
    expect(await spinning).toBe(3);
    await playRun(ctx, clock, { during: () => vi.advanceTimersByTime(600_000) });
    expect(vi.getTimerCount()).toBe(0);
    expect(tty.raw).not.toContain(`${ESC}[1A`);
    expect(tty.raw).not.toContain(ESC);
    expect(tty.raw).toBe(
      'invoices/big.pdf: split into 3 chunks (9 pages)\n' +
        `waiting: rate limit; next request slot ${localTime(T0 + 42_000, true)} (in 42s)\n` +
        '[1/3] complete  a.png -> out/a.png.json (1 page)\n' +
        '[2/3] complete  invoices/big.pdf -> out/big.json (9 pages)\n' +
        '[3/3] failed    c.pdf: not a PDF (invalid_file)\n' +
        `${SUMMARY}\n`,
    );
  });
});

describe('hostile names on the bars', () => {
  it("a split file's bar is labelled with its name escaped: no OSC sequence reaches the terminal, no override turns the line", async () => {
    vi.useFakeTimers(DRAWING_TIMERS);
    const clock = new FakeClock(T0);
    const tty = new FakeTty(120);
    const display = await BatchDisplay.create(context({ stdout: tty, stderr: tty }, clock), 2);
    display.documentStarted(doc('invoice\x1b]0;x\x07.pdf', 4), 2);
    display.documentStarted(doc('a\u202efdp.exe.pdf', 4), 2);
    vi.advanceTimersByTime(100);
    const drawn = tty.mark();
    display.finish({ requests: 0, credits: 0 }, T0);
    vi.useRealTimers();
    expect(tty.raw).not.toContain(`${ESC}]`);
    expect(tty.raw).not.toContain('\u202e');
    const screen = await tty.screen(drawn);
    expect(screen[1]).toMatch(/^invoice\\x1b\]0;x\\x07\.pdf /);
    expect(screen[2]).toMatch(/^a\\u202efdp\.exe\.pdf /);
  });
});
