import { getEventListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRateWindows } from '../../../src/config/grammar/rate-limit.js';
import { countedAt, LOADED_SEND_MARGIN_MS, RequestGate } from '../../../src/batch/request-gate.js';
import { AnsweredAtOnceGate } from '../../helpers/answered-gate.js';
import { FileSendLog, MemorySendLog } from '../../../src/batch/send-log.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { testSeed } from '../../helpers/seeded-random.js';

const T0 = 1_700_000_000_000;
const MIN = 60_000;
const DAY = 24 * 60 * MIN;
/** The random schedules' seed: fixed in npm test, printed, DOCEXTRACT_TEST_SEED replays another. */
const SEED = testSeed('test/unit/batch/request-gate.test.ts', 42);

function gateOn(spec: string, extra: { guardMs?: number; sendLog?: MemorySendLog | FileSendLog; clock?: FakeClock } = {}) {
  const clock = extra.clock ?? new FakeClock(T0);
  const gate = new AnsweredAtOnceGate({ windows: parseRateWindows(spec), clock, guardMs: extra.guardMs, sendLog: extra.sendLog });
  return { clock, gate };
}

/** Deterministic PRNG (mulberry32), so a failing schedule can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Largest number of sends inside any half-open interval of length `windowMs`, as the server counts them. */
function busiestWindow(times: number[], windowMs: number): number {
  let most = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while ((times[start] ?? 0) <= (times[end] ?? 0) - windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

describe('RequestGate with several windows at once', () => {
  it(`never lets any sliding 1 s or 12 s interval exceed 8/1s + 60/12s over thousands of sends (seed ${SEED})`, async () => {
    const { clock, gate } = gateOn('8/1s,60/12s');
    const next = random(SEED);
    const sent: number[] = [];
    const worker = async (): Promise<void> => {
      for (let i = 0; i < 500; i++) {
        await gate.acquire();
        sent.push(clock.now());
        // Mostly back-to-back pressure, sometimes a pause long enough for windows to drain.
        if (next() < 0.3) await clock.sleep(Math.floor(next() * 15_000));
      }
    };
    const workers = Array.from({ length: 6 }, worker);
    await clock.runAll();
    await Promise.all(workers);

    expect(sent).toHaveLength(3000);
    expect(busiestWindow(sent, 1_000)).toBe(8);
    expect(busiestWindow(sent, 12_000)).toBe(60);
    // The guard (2 ms here) spaces each send from the one `limit` back by W + guard.
    for (let i = 8; i < sent.length; i++) expect((sent[i] ?? 0) - (sent[i - 8] ?? 0)).toBeGreaterThanOrEqual(1_002);
    for (let i = 60; i < sent.length; i++) expect((sent[i] ?? 0) - (sent[i - 60] ?? 0)).toBeGreaterThanOrEqual(12_002);
  });

  it('uses the windows fully: a saturated gate sends at exactly the projected slots', async () => {
    const { clock, gate } = gateOn('8/1s,60/12s');
    const projected = gate.projectSlots(500);
    const sent: number[] = [];
    const all = Array.from({ length: 500 }, () => gate.acquire().then(() => sent.push(clock.now())));
    await clock.runAll();
    await Promise.all(all);
    expect(sent).toEqual(projected);
    // 60/12s dominates: 8 full batches of 60 (12 s + the 2 ms guard apart), then the
    // last 20 go out in 8/1s bursts of 8, 8 and 4.
    expect((sent.at(-1) ?? 0) - T0).toBe(8 * 12_002 + 2 * 1_002);
  });
});

describe('RequestGate.projectSlots', () => {
  it('equals the actual acquire times, on top of an existing history', async () => {
    const history = Array.from({ length: 95 }, (_, i) => T0 - 50 * MIN + i * 20_000);
    const { clock, gate } = gateOn('10/min,100/h', { sendLog: new MemorySendLog(history) });
    const projected = gate.projectSlots(250);
    expect(gate.waiting).toBe(0);
    const sent: number[] = [];
    const sender = async (): Promise<void> => {
      for (let i = 0; i < 250; i++) {
        await gate.acquire();
        sent.push(clock.now());
      }
    };
    const done = sender();
    await clock.runAll();
    await done;
    expect(sent).toEqual(projected);
    // Projection records nothing: asking twice gives the same answer.
    expect(gate.projectSlots(3)).toEqual(gate.projectSlots(3));
  });

  it('honours `from`, pauses and the guard', () => {
    const { clock, gate } = gateOn('2/1s', { guardMs: 20 });
    expect(gate.projectSlots(4)).toEqual([T0, T0, T0 + 1_020, T0 + 1_020]);
    expect(gate.projectSlots(2, T0 + 5_000)).toEqual([T0 + 5_000, T0 + 5_000]);
    gate.pauseUntil(T0 + 7_000, 'server_busy');
    expect(gate.projectSlots(1)).toEqual([T0 + 7_000]);
    expect(clock.now()).toBe(T0);
  });
});

describe('RequestGate order', () => {
  it('serves waiters in the order they came, those of one tick included', async () => {
    const { clock, gate } = gateOn('1/1s', { guardMs: 0 });
    const order: string[] = [];
    const take = (name: string) => gate.acquire().then(() => order.push(`${name}@${clock.now() - T0}`));
    const first = take('a');
    await clock.advance(0);
    const rest = [take('b'), take('c')];
    await clock.advance(100);
    const late = take('d');
    expect(gate.waiting).toBe(3);
    await clock.runAll();
    await Promise.all([first, ...rest, late]);
    expect(order).toEqual(['a@0', 'b@1000', 'c@2000', 'd@3000']);
  });
});

describe('RequestGate abort', () => {
  it('rejects with the reason, removes the waiter and gives its slot to the next one', async () => {
    const { clock, gate } = gateOn('1/1s', { guardMs: 0 });
    await gate.acquire();
    const controller = new AbortController();
    const doomed = gate.acquire(controller.signal);
    const times: number[] = [];
    const next = gate.acquire().then(() => times.push(clock.now() - T0));
    await clock.advance(500);
    expect(gate.waiting).toBe(2);
    controller.abort(new Error('user cancelled'));
    await expect(doomed).rejects.toThrow('user cancelled');
    expect(gate.waiting).toBe(1);
    await clock.runAll();
    await next;
    expect(times).toEqual([1000]);
    // The aborted waiter consumed nothing: the next slot is one window after the last real send.
    expect(gate.nextSlotAt() - T0).toBe(2000);
  });

  it('leaves no timer behind when every waiter gives up', async () => {
    const { clock, gate } = gateOn('1/1s', { guardMs: 0 });
    await gate.acquire();
    const controller = new AbortController();
    const waiting = gate.acquire(controller.signal);
    await clock.advance(10);
    expect(clock.pendingTimers()).toBe(1);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    await clock.advance(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const { gate } = gateOn('1/1s');
    await expect(gate.acquire(AbortSignal.abort(new Error('late')))).rejects.toThrow('late');
    expect(gate.waiting).toBe(0);
  });
});

describe('RequestGate.pauseUntil', () => {
  it('holds all sending until the pause ends; the longest pause wins', async () => {
    const { clock, gate } = gateOn('10/min', { guardMs: 0 });
    gate.pauseUntil(T0 + 30_000, 'rate_limit_exceeded');
    gate.pauseUntil(T0 + 10_000, 'shorter, ignored');
    expect(gate.pausedUntil).toBe(T0 + 30_000);
    expect(gate.pauseReason).toBe('rate_limit_exceeded');
    expect(gate.nextSlotAt()).toBe(T0 + 30_000);

    const times: number[] = [];
    const sending = gate.acquire().then(() => times.push(clock.now() - T0));
    await clock.advance(20_000);
    // A longer pause arriving while a waiter sleeps pushes it back.
    gate.pauseUntil(T0 + 200_000, 'server_busy');
    await clock.runAll();
    await sending;
    expect(times).toEqual([200_000]);
    expect(gate.pauseReason).toBeUndefined();
  });
});

describe('RequestGate.observe', () => {
  it('leaves to other clients what the server counted beyond our own sends', async () => {
    const { clock, gate } = gateOn('10/min,100/h', { guardMs: 0 });
    await gate.acquire();
    await gate.acquire();
    await clock.advance(1_000);
    gate.observe({ limit: 10, remaining: 3, resetAtMs: T0 + MIN, sentAt: T0 });
    expect(gate.othersIn(10)).toBe(5);
    expect(gate.projectSlots(4).map((t) => t - T0)).toEqual([1_000, 1_000, 1_000, MIN]);
  });

  it('sees no other client when every request the server counted may be ours', async () => {
    const { clock, gate } = gateOn('8/1s', { guardMs: 0 });
    for (let i = 0; i < 5; i++) await gate.acquire();
    await clock.advance(100);
    // Answered after all five were sent: the server may have counted them all, whichever it answered.
    gate.observe({ limit: 8, remaining: 3, sentAt: T0 });
    expect(gate.othersIn(8)).toBe(0);
    expect(gate.projectSlots(3).map((t) => t - T0)).toEqual([100, 100, 100]);
  });

  it('a 429 leaves to others what our log does not hold of the full window, and cuts the window to 90%', async () => {
    const { clock, gate } = gateOn('100/1s', { guardMs: 0 });
    for (let i = 0; i < 60; i++) await gate.acquire();
    gate.rejected(100); // the 60th was refused: 59 of ours, 41 others'
    expect(gate.othersIn(100)).toBe(41);
    const burst = (): number => gate.projectSlots(100).filter((t) => t === clock.now()).length;
    expect(burst()).toBe(0);
    await clock.advance(1_010); // a window and the guard, widened to 10 ms by the 429
    // Others halve every 4 windows (41 x 0.84 = 34), the cut wins back 5% a window: (100 - 34) x 0.95.
    expect(burst()).toBe(62);
    await clock.advance(40_000);
    expect(burst()).toBe(100);
    gate.rejected(7); // names no window of ours: only the guard widens
    expect(burst()).toBe(100);
  });

  it('never loosens', async () => {
    const { gate } = gateOn('10/min', { guardMs: 0 });
    for (let i = 0; i < 10; i++) await gate.acquire();
    const before = gate.nextSlotAt();
    gate.observe({ limit: 10, remaining: 10, resetAtMs: T0 });
    gate.observe({ limit: 10, remaining: 7 });
    expect(gate.nextSlotAt()).toBe(before);
    expect(before).toBe(T0 + MIN);
  });

  it('tightens the shortest window when the reported limit matches none of ours', () => {
    const { gate } = gateOn('10/min,100/h', { guardMs: 0 });
    gate.observe({ limit: 7, remaining: 0 });
    expect(gate.nextSlotAt()).toBe(T0 + MIN);
  });

  it('holds until the reset when the server reports nothing left in a window we do not track', () => {
    const { gate } = gateOn('10/min', { guardMs: 0 });
    gate.observe({ limit: 10_000, remaining: 0, resetAtMs: T0 + 3 * DAY });
    expect(gate.nextSlotAt()).toBe(T0 + 3 * DAY);
  });

  it('does not idle until a whole-second reset when our own log already knows the window is full', async () => {
    const { gate } = gateOn('2/1s', { guardMs: 0 });
    await gate.acquire();
    await gate.acquire();
    // Our next slot is T0 + 1 s; a reset less than a second after it is only the server's rounding.
    gate.observe({ limit: 2, remaining: 0, resetAtMs: T0 + 1_999 });
    expect(gate.nextSlotAt()).toBe(T0 + 1_000);
  });

  it('moves an answered send later to when the server counted it, never earlier', async () => {
    const { clock, gate } = gateOn('2/1s', { guardMs: 0 });
    const first = await gate.acquire();
    await gate.acquire();
    expect(gate.nextSlotAt()).toBe(T0 + 1_000);
    await clock.advance(300);
    gate.restamp(first, T0 + 250); // a slow upload reached the server's limiter 250 ms late
    expect(gate.nextSlotAt()).toBe(T0 + 1_000); // the other send still fills the window until then...
    await clock.advance(700);
    const third = await gate.acquire();
    expect(third).toBe(T0 + 1_000);
    expect(gate.nextSlotAt()).toBe(T0 + 1_250); // ...but the moved one holds its place until T0 + 1.25 s
    gate.restamp(third, T0 + 500);
    expect(gate.nextSlotAt()).toBe(T0 + 1_250);
  });

  it('widens its safety gap after a rejection, up to a tenth of the shortest window', async () => {
    const { gate } = gateOn('2/1s', { guardMs: 20 });
    await gate.acquire();
    await gate.acquire();
    expect(gate.nextSlotAt()).toBe(T0 + 1_020);
    gate.widenGuard();
    expect(gate.guard).toBe(40);
    expect(gate.nextSlotAt()).toBe(T0 + 1_040);
    for (let i = 0; i < 10; i++) gate.widenGuard();
    expect(gate.guard).toBe(100);
  });

  it('wakes a sleeping waiter only to push it later, never earlier', async () => {
    const { clock, gate } = gateOn('2/min', { guardMs: 0 });
    await gate.acquire();
    const times: number[] = [];
    const sending = gate.acquire().then(() => times.push(clock.now() - T0));
    await clock.advance(0);
    expect(times).toEqual([0]);
    const third = gate.acquire().then(() => times.push(clock.now() - T0));
    await clock.advance(1_000);
    gate.observe({ limit: 2, remaining: 0, resetAtMs: T0 + 90_000 });
    await clock.runAll();
    await Promise.all([sending, third]);
    expect(times).toEqual([0, 90_000]);
  });
});

describe('RequestGate: a send holds its slot until it is answered (issue 54)', () => {
  /** A gate whose sends stay in flight until the test answers them. */
  const inFlightGate = (spec: string) => {
    const clock = new FakeClock(T0);
    return { clock, gate: new RequestGate({ windows: parseRateWindows(spec), clock, guardMs: 0 }) };
  };

  it('counts an unanswered send as made now: a window reckoned from its grant would free too early', async () => {
    const { clock, gate } = inFlightGate('2/1s');
    const sent = [await gate.acquire(), await gate.acquire()];
    await clock.advance(1_500);
    // Both may still reach the server's limiter at any instant: nothing fits until a window after now.
    expect(gate.nextSlotAt()).toBe(T0 + 2_500);
    expect(gate.holdingWindow()?.limit).toBe(2);
    // The first was counted 100 ms after its grant (answered now, 1,400 ms of work): its slot is free.
    gate.answered(sent[0] ?? 0, 1_400);
    expect(gate.nextSlotAt()).toBe(T0 + 1_500);
    // The second failed without word of when it was counted: by now, at the latest.
    gate.settle(sent[1] ?? 0);
    expect(gate.projectSlots(2)).toEqual([T0 + 1_500, T0 + 2_500]);
  });

  it('wakes a waiting request when the send holding its slot is answered or never made', async () => {
    const { clock, gate } = inFlightGate('1/1s');
    const first = await gate.acquire();
    let secondAt: number | undefined;
    const second = gate.acquire().then((at) => (secondAt = at));
    await clock.advance(5_000);
    expect(secondAt).toBeUndefined();
    gate.unsent(first); // no connection was made: it holds nothing
    await clock.advance(0);
    await second;
    expect(secondAt).toBe(T0 + 5_000);

    let thirdAt: number | undefined;
    const third = gate.acquire().then((at) => (thirdAt = at));
    await clock.advance(3_000);
    gate.answered(secondAt ?? 0, 2_900); // counted at T0 + 5,100
    await clock.runAll();
    await third;
    expect(thirdAt).toBe(T0 + 8_000);
  });

  it('wakes a waiting request when the send holding its slot turns out counted at its grant', async () => {
    const { clock, gate } = inFlightGate('1/1s');
    const first = await gate.acquire();
    let secondAt: number | undefined;
    const second = gate.acquire().then((at) => (secondAt = at));
    await clock.advance(1_000);
    expect(secondAt).toBeUndefined(); // held: the first may reach the server now
    gate.answered(first, 1_000); // worked on from its grant on: counted at T0, its window over
    await clock.advance(0);
    await second;
    expect(secondAt).toBe(T0 + 1_000);
  });

  it('settles a send once: an answered or unsent one is not moved again', async () => {
    const { clock, gate } = inFlightGate('1/1s');
    const sent = await gate.acquire();
    gate.answered(sent, 0);
    await clock.advance(700);
    gate.settle(sent); // not moved to T0 + 700
    expect(gate.nextSlotAt()).toBe(T0 + 1_000);
    gate.unsent(sent + 1); // no send of that instant: nothing changes
    expect(gate.nextSlotAt()).toBe(T0 + 1_000);
  });
});

describe('RequestGate persistence', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('does not burst after a restart on the same send log', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gate-'));
    const path = join(dir, 'state', 'sends.log');
    const first = new FakeClock(T0);
    const before = new AnsweredAtOnceGate({
      windows: parseRateWindows('5/min'),
      clock: first,
      sendLog: new FileSendLog(path, { keepMs: MIN, clock: first }),
      guardMs: 0,
    });
    for (let i = 0; i < 5; i++) await before.acquire();

    // "Restart" ten seconds later: a new process, a new gate, the same file.
    const clock = new FakeClock(T0 + 10_000);
    const after = new AnsweredAtOnceGate({
      windows: parseRateWindows('5/min'),
      clock,
      sendLog: new FileSendLog(path, { keepMs: MIN, clock }),
      guardMs: 0,
    });
    // Read from the log, a send carries the margin of one another run may have left in flight.
    expect(after.nextSlotAt()).toBe(T0 + MIN + LOADED_SEND_MARGIN_MS);
    let sentAt: number | undefined;
    const sending = after.acquire().then(() => (sentAt = clock.now()));
    await clock.runAll();
    await sending;
    expect(sentAt).toBe(T0 + MIN + LOADED_SEND_MARGIN_MS);

    // Without the log, the same restart would have sent at once.
    const amnesiac = new AnsweredAtOnceGate({ windows: parseRateWindows('5/min'), clock: new FakeClock(T0 + 10_000), guardMs: 0 });
    expect(amnesiac.nextSlotAt()).toBe(T0 + 10_000);
  });
});

describe('RequestGate: a send moved or never made, after a restart (issue 52)', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the next gate on the same send log counts each answered request once, at the instant it was moved to, and no unsent one', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gate-'));
    const path = join(dir, 'sends.log');
    const clock = new FakeClock(T0);
    const before = new AnsweredAtOnceGate({ windows: parseRateWindows('4/min'), clock, sendLog: new FileSendLog(path, { keepMs: MIN, clock }), guardMs: 0 });
    const sent = [await before.acquire(), await before.acquire(), await before.acquire()];
    before.restamp(sent[0] ?? 0, T0 + 2_000);
    before.answered(sent[1] ?? 0);
    before.unsent(sent[2] ?? 0);

    const after = new AnsweredAtOnceGate({ windows: parseRateWindows('4/min'), clock, sendLog: new FileSendLog(path, { keepMs: MIN, clock }), guardMs: 0 });
    // Two sends in a 4/min window: two more fit now, the third waits for the earlier one to leave it.
    expect(after.projectSlots(3)).toEqual([T0, T0, T0 + MIN + LOADED_SEND_MARGIN_MS]);
    expect(new FileSendLog(path, { keepMs: MIN, clock }).load()).toEqual([T0, T0 + 2_000]);
  });
});

describe('RequestGate with the month window full', () => {
  // These two stay on real time on purpose: what they claim is cost (an indexed read, not a scan of
  // the log), and a bound on real time is the only measure of it; the scan it guards against takes
  // 10^9 steps, orders of magnitude past the bound even on an idle machine, the indexed read milliseconds.
  it('handles 10,000 logged sends cheaply', { timeout: 10_000 }, async () => {
    const windows = '10/min,100/h,1000/d,10000/mo';
    // 10,000 sends spread over the last 29 days fill the month window exactly.
    const history = Array.from({ length: 10_000 }, (_, i) => T0 - 29 * DAY + i * Math.floor((29 * DAY) / 10_000));
    const { clock, gate } = gateOn(windows, { sendLog: new MemorySendLog(history), guardMs: 0 });
    const oldest = history[0] ?? 0;
    expect(gate.nextSlotAt()).toBe(oldest + 30 * DAY + LOADED_SEND_MARGIN_MS);

    // A linear scan of the log per question would be 2 * 10^9 steps here and
    // blow the timeout; an indexed read per window takes milliseconds.
    let last = 0;
    for (let i = 0; i < 200_000; i++) last = gate.nextSlotAt();
    expect(last).toBe(oldest + 30 * DAY + LOADED_SEND_MARGIN_MS);
    expect(gate.projectSlots(2).map((t) => t - oldest - LOADED_SEND_MARGIN_MS)).toEqual([30 * DAY, 30 * DAY + ((history[1] ?? 0) - oldest)]);

    let sentAt = 0;
    const sending = gate.acquire().then(() => (sentAt = clock.now()));
    await clock.runAll();
    await sending;
    expect(sentAt).toBe(oldest + 30 * DAY + LOADED_SEND_MARGIN_MS);
  });

  it('sends 10,000 requests through a 10000/mo window and blocks the next one for the month', { timeout: 15_000 }, async () => {
    const { clock, gate } = gateOn('10000/mo', { guardMs: 0 });
    for (let i = 0; i < 10_000; i++) await gate.acquire();
    expect(clock.now()).toBe(T0);
    expect(gate.nextSlotAt()).toBe(T0 + 30 * DAY);
    await clock.advance(30 * DAY);
    expect(gate.nextSlotAt()).toBe(T0 + 30 * DAY);
    expect(gate.projectSlots(10_001).at(-1)).toBe(T0 + 60 * DAY);
  });
});

describe('RequestGate details', () => {
  it('enforces its windows shortest first, whatever order they are given in', () => {
    const { gate } = gateOn('100/h,10/min,1000/d');
    expect(gate.rateWindows.map((w) => w.label)).toEqual(['10/min', '100/h', '1000/d']);
  });

  it('without windows, sends at once and keeps no guard', () => {
    const { gate } = gateOn('none');
    expect(gate.projectSlots(3)).toEqual([T0, T0, T0]);
    gate.widenGuard();
    expect(gate.guard).toBe(0);
    gate.observe({ limit: 10, remaining: 0 });
    expect(gate.nextSlotAt()).toBe(T0);
  });

  it('starts from a send log in any order', () => {
    const { gate } = gateOn('2/1s', { guardMs: 0, sendLog: new MemorySendLog([T0 - 100, T0 - 900, T0 - 500]) });
    expect(gate.projectSlots(2)).toEqual([T0 + 500 + LOADED_SEND_MARGIN_MS, T0 + 900 + LOADED_SEND_MARGIN_MS]);
  });

  it('an abort takes out exactly the waiter it belongs to', async () => {
    const { clock, gate } = gateOn('1/1s', { guardMs: 0 });
    await gate.acquire();
    const controller = new AbortController();
    const order: string[] = [];
    const first = gate.acquire().then(() => order.push('first'));
    const doomed = gate.acquire(controller.signal);
    const last = gate.acquire().then(() => order.push('last'));
    await clock.advance(0);
    controller.abort(new Error('no'));
    await expect(doomed).rejects.toThrow('no');
    expect(gate.waiting).toBe(2);
    await clock.runAll();
    await Promise.all([first, last]);
    expect(order).toEqual(['first', 'last']);
  });

  it('leaves no listener on a signal shared by many requests, served or aborted', async () => {
    const { clock, gate } = gateOn('1/1s', { guardMs: 0 });
    const shared = new AbortController();
    await gate.acquire(shared.signal);
    const second = gate.acquire(shared.signal);
    await clock.runAll();
    await second;
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
    const waiting = gate.acquire(shared.signal);
    await clock.advance(0);
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1);
    shared.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });

  it('a send log that cannot be written fails that request, and its slot still counts', async () => {
    const failing = {
      load: () => [],
      append: () => {
        throw new Error('disk full');
      },
      move: () => undefined,
      drop: () => undefined,
    };
    const clock = new FakeClock(T0);
    const gate = new AnsweredAtOnceGate({ windows: parseRateWindows('1/1s'), clock, guardMs: 0, sendLog: failing });
    const failed = expect(gate.acquire()).rejects.toThrow('disk full');
    await clock.advance(0);
    await failed;
    expect(gate.nextSlotAt()).toBe(T0 + 1_000);
  });

  it('keeps the first reason for a pause of the same length', () => {
    const { gate } = gateOn('1/1s');
    gate.pauseUntil(T0 + 5_000, 'server_busy');
    gate.pauseUntil(T0 + 5_000, 'rate_limit_exceeded');
    expect(gate.pauseReason).toBe('server_busy');
  });
});

describe('RequestGate.observe details', () => {
  it('tightens the window whose limit the server names, not the shortest', async () => {
    const { gate } = gateOn('10/min,100/h', { guardMs: 0 });
    await gate.acquire();
    await gate.acquire();
    gate.observe({ limit: 100, remaining: 95 });
    // Three others' requests in the hour say nothing of the last minute: it keeps its ten.
    expect(gate.othersIn(100)).toBe(3);
    expect(gate.othersIn(10)).toBeLessThan(0.5); // 3 an hour is 0.05 a minute
    expect(gate.projectSlots(9).map((t) => t - T0)).toEqual(Array(8).fill(0).concat([MIN]));
  });

  it('counts only our sends still inside the window', async () => {
    const { clock, gate } = gateOn('10/min', { guardMs: 0 });
    await gate.acquire(); // at T0: leaves the window at T0 + 1 min exactly
    await clock.advance(30_000);
    await gate.acquire();
    await gate.acquire();
    await clock.advance(30_000);
    gate.observe({ limit: 10, remaining: 5 });
    // Two of ours are inside (T0 + 30 s); the server's 5 left means 3 phantoms now.
    expect(gate.projectSlots(6).map((t) => t - T0)).toEqual([MIN, MIN, MIN, MIN, MIN, 30_000 + MIN]);
  });

  it('ignores a remaining that is no number', () => {
    const { gate } = gateOn('10/min', { guardMs: 0 });
    gate.observe({ limit: 10, remaining: Number.NEGATIVE_INFINITY, resetAtMs: T0 + MIN });
    gate.observe({ limit: 10, remaining: Number.NaN, resetAtMs: T0 + MIN });
    expect(gate.nextSlotAt()).toBe(T0);
  });

  it('holds past our own next slot for a window it does not track, and adds the guard to a reset', () => {
    const { gate } = gateOn('10/min', { guardMs: 0 });
    // The unknown limit tightens our shortest window (full until T0 + 1 min) and holds 500 ms more.
    gate.observe({ limit: 50, remaining: 0, resetAtMs: T0 + MIN + 500 });
    expect(gate.nextSlotAt()).toBe(T0 + MIN + 500);
    const guarded = gateOn('10/min', { guardMs: 20 }).gate;
    guarded.observe({ limit: 10_000, remaining: 0, resetAtMs: T0 + 3 * DAY });
    expect(guarded.nextSlotAt()).toBe(T0 + 3 * DAY + 20);
  });

  it('a reset exactly a second after our next slot is rounding', async () => {
    const { gate } = gateOn('2/1s', { guardMs: 0 });
    await gate.acquire();
    await gate.acquire();
    gate.observe({ limit: 2, remaining: 0, resetAtMs: T0 + 2_000 });
    expect(gate.nextSlotAt()).toBe(T0 + 1_000);
  });
});

describe('RequestGate.restamp and the guard details', () => {
  it('moves the oldest send in the log too, and never moves one earlier or one it never recorded', async () => {
    const { clock, gate } = gateOn('1/1s', { guardMs: 0 });
    const sent = await gate.acquire();
    await clock.advance(500);
    gate.restamp(sent, sent - 400);
    expect(gate.nextSlotAt()).toBe(T0 + 1_000);
    gate.restamp(T0 + 123, T0 + 450);
    expect(gate.nextSlotAt()).toBe(T0 + 1_000);
    gate.restamp(sent, T0 + 300);
    expect(gate.nextSlotAt()).toBe(T0 + 1_300);
  });

  it('answered: a send moves to the answer less the processing time the server reports, or to the answer without one (issue 28)', async () => {
    const { clock, gate } = gateOn('2/1s', { guardMs: 0 });
    const first = await gate.acquire();
    const second = await gate.acquire();
    await clock.advance(300); // the answers come back 300 ms later; the server says it worked 100 ms on the first
    gate.answered(first, 100);
    expect(gate.nextSlotAt()).toBe(T0 + 1_000); // the second still holds the window from its grant
    gate.answered(second);
    expect(gate.projectSlots(2).map((t) => t - T0)).toEqual([1_200, 1_300]);
  });

  it('countedAt: the answer less a positive processing time; the answer itself without one, or with a figure that is no time', () => {
    expect(countedAt(T0 + 1_000, 300)).toBe(T0 + 700);
    expect(countedAt(T0 + 1_000, undefined)).toBe(T0 + 1_000);
    expect(countedAt(T0 + 1_000, 0)).toBe(T0 + 1_000);
    // A server's negative figure must not move the count after the answer.
    expect(countedAt(T0 + 1_000, -50)).toBe(T0 + 1_000);
  });

  it('unsent forgets the send it names, the oldest included, and nothing when it names none', async () => {
    const { clock, gate } = gateOn('2/1s', { guardMs: 0 });
    const first = await gate.acquire();
    await clock.advance(100);
    const second = await gate.acquire();
    gate.unsent(T0 + 50); // never recorded: both sends still hold the window
    expect(gate.projectSlots(2).map((t) => t - T0)).toEqual([1_000, 1_100]);
    gate.unsent(first); // the oldest send in the log never reached the server
    expect(gate.projectSlots(2).map((t) => t - T0)).toEqual([100, 1_100]);
    gate.unsent(second);
    expect(gate.projectSlots(2).map((t) => t - T0)).toEqual([100, 100]);
  });

  it('keeps the log in time order when a send moves behind later ones', async () => {
    const { clock, gate } = gateOn('3/1s', { guardMs: 0 });
    const first = await gate.acquire();
    await clock.advance(100);
    await gate.acquire();
    await clock.advance(100);
    await gate.acquire();
    gate.restamp(first, T0 + 150);
    expect(gate.projectSlots(3).map((t) => t - T0)).toEqual([1_100, 1_150, 1_200]);
  });

  it('a widened guard keeps old sends in view for the longer gap', async () => {
    const { clock, gate } = gateOn('2/1s', { guardMs: 20 });
    await gate.acquire();
    await gate.acquire();
    gate.widenGuard();
    await clock.advance(1_000);
    expect(gate.nextSlotAt()).toBe(T0 + 1_040);
  });
});

describe('RequestGate memory', () => {
  /** How many send times the gate holds, expired ones awaiting compaction included. */
  const heldLog = (gate: RequestGate): number => (gate as unknown as { log: number[] }).log.length;
  /** `count` sends one millisecond apart, the last at T0 - 1. */
  const history = (count: number): MemorySendLog => new MemorySendLog(Array.from({ length: count }, (_, i) => T0 - count + i));

  it('drops expired sends once more than 1024 of them make up over half the log', () => {
    // Horizon 1 s: sends at or before T0 - 1000 have expired (logged at T0 - 1050, with the margin of sends read from the log).
    expect(heldLog(gateOn('1000/1s', { guardMs: 0, sendLog: history(3000) }).gate)).toBe(999 + LOADED_SEND_MARGIN_MS);
  });

  it('keeps them while there are 1024 or fewer, or while they are half the log or less', () => {
    expect(heldLog(gateOn('1000/1s', { guardMs: 0, sendLog: history(2023) }).gate)).toBe(2023); // 1024 expired
    expect(heldLog(gateOn('2000/2s', { guardMs: 0, sendLog: history(3998) }).gate)).toBe(3998); // 1999 of 3998 expired
  });
});

describe('RequestGate.holdingWindow: which window the next slot waits for', () => {
  it('none while a slot is free; the full window once one is; the longer one once it holds the later slot', async () => {
    const { clock, gate } = gateOn('10/min,100/h', { guardMs: 50 });
    expect(gate.holdingWindow()).toBeUndefined();
    for (let i = 0; i < 9; i++) await gate.acquire();
    expect(gate.holdingWindow()).toBeUndefined(); // one slot left in the minute
    await gate.acquire();
    expect(gate.holdingWindow()?.label).toBe('10/min');
    expect(gate.nextSlotAt()).toBe(T0 + MIN + 50);

    // Ten a minute for ten minutes: the hour is full, and its slot is the later one.
    const at = (ms: number): Promise<void> => clock.advance(ms - clock.now());
    for (let minute = 1; minute < 10; minute++) {
      await clock.advance(MIN + 50); // the instant the minute frees its slots
      for (let i = 0; i < 10; i++) await gate.acquire();
    }
    expect(gate.holdingWindow()?.label).toBe('100/h');
    await at(T0 + 59 * MIN);
    expect(gate.holdingWindow()?.label).toBe('100/h');
    await at(T0 + 60 * MIN + 50);
    expect(gate.holdingWindow()).toBeUndefined();
  });

  it('none when a pause or a hold by the server ends later than any window frees a slot', async () => {
    const { gate } = gateOn('10/min', { guardMs: 50 });
    for (let i = 0; i < 10; i++) await gate.acquire();
    gate.pauseUntil(T0 + MIN + 51, 'server busy');
    expect(gate.holdingWindow()).toBeUndefined();
    const held = gateOn('10/min', { guardMs: 50 });
    for (let i = 0; i < 10; i++) await held.gate.acquire();
    held.gate.pauseUntil(T0 + MIN + 49, 'server busy');
    expect(held.gate.holdingWindow()?.label).toBe('10/min');
  });

  it('counts the window at the limit left to us when other clients share the key', async () => {
    const { gate } = gateOn('10/min', { guardMs: 50 });
    for (let i = 0; i < 6; i++) await gate.acquire();
    // The server counts 9 in the window, of which 6 are ours: 3 are another client's, so 7 are ours to use.
    gate.observe({ limit: 10, remaining: 1, sentAt: T0 });
    expect(gate.othersIn(10)).toBe(3);
    expect(gate.othersIn(99)).toBeUndefined();
    expect(gate.holdingWindow()).toBeUndefined();
    await gate.acquire();
    expect(gate.holdingWindow()?.label).toBe('10/min');
  });
});
