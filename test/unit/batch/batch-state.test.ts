/**
 * What a batch learns from each request and each effect a flow returns: the
 * totals, the open jobs and their slots, the budgets, the gate, and the lines
 * the display is told. Driven in-process on a fake clock, with the real
 * ledger, stops and slot probe, and a gate that records what it is asked.
 */
import { describe, expect, it } from 'vitest';
import type { BatchEvents, DocumentOutcome, PlannedDocument, RunSettings } from '../../../src/batch/batch-types.js';
import { BatchState } from '../../../src/batch/batch-state.js';
import { DocumentTask, type JobManifest } from '../../../src/batch/document-task.js';
import type { FlowEffect } from '../../../src/batch/flow-effects.js';
import { JobPhaseError } from '../../../src/batch/job-phase.js';
import type { WorkItem } from '../../../src/batch/job-work.js';
import { FakeClock } from '../../helpers/fake-clock.js';

const T0 = 1_700_000_000_000;

const SETTINGS: RunSettings = {
  concurrency: 4,
  openJobCap: 5,
  ttlMs: 7_200_000,
  marginMs: 600_000,
  finalize: true,
  storeDb: false,
  maxCredits: undefined,
  retryFailed: false,
  maxCollectRounds: 4,
  maxAttempts: 8,
  retryBaseMs: 1000,
  retryMaxMs: 60_000,
  slotWaitMs: 1_800_000,
  busyPauseMs: 120_000,
  conflictDelayMs: 10_000,
};

type Call = [string, ...unknown[]];

const EVENT_NAMES = [
  'uploadStarted',
  'documentStarted',
  'chunkDone',
  'documentFinished',
  'creditsCharged',
  'waiting',
  'slotsHeld',
  'notice',
  'chunkFailed',
  'requestUnreached',
  'requestAnswered',
  'reachability',
] as const;

function make(
  options: { settings?: Partial<RunSettings>; keepOutcomes?: boolean; phantoms?: { until: number; jobId?: string }[]; withoutHooks?: boolean } = {},
) {
  const clock = new FakeClock(T0);
  const calls: Call[] = [];
  const gateCalls: Call[] = [];
  const events = Object.fromEntries(EVENT_NAMES.map((name) => [name, (...args: unknown[]) => void calls.push([name, ...args])])) as unknown as BatchEvents;
  const gate = {
    projectSlots: (n: number, from?: number) => {
      gateCalls.push(['projectSlots', n, from]);
      return [T0 + 1, T0 + 2];
    },
    unsent: (at: number) => void gateCalls.push(['unsent', at]),
    settle: (at: number) => void gateCalls.push(['settle', at]),
    pauseUntil: (until: number, reason: string) => void gateCalls.push(['pauseUntil', until, reason]),
    rejected: (limit?: number) => void gateCalls.push(['rejected', limit]),
    restamp: (recordedAt: number, countedAt: number) => void gateCalls.push(['restamp', recordedAt, countedAt]),
  } as unknown as ConstructorParameters<typeof BatchState>[0]['gate'];
  let stops = 0;
  let busy = 0;
  const finishedFirst: string[] = [];
  const notSent: [string, string][] = [];
  const batch = new BatchState({
    clock,
    events,
    settings: { ...SETTINGS, ...options.settings },
    gate,
    serverBusy: () => void (busy += 1),
    phantomJobs: options.phantoms ?? [],
    keepOutcomes: options.keepOutcomes ?? true,
    onStop: () => void (stops += 1),
    ...(options.withoutHooks
      ? {}
      : {
          onFinished: (outcome: DocumentOutcome, doc: PlannedDocument) => {
            // Told before the display: the display has not yet heard of this document.
            const displayed = calls.some(([name, , d]) => name === 'documentFinished' && d === doc);
            finishedFirst.push(`${doc.displayPath}:${outcome.status}:${displayed ? 'after' : 'before'}:${outcome.data === undefined ? 'no data' : 'data'}`);
          },
          onIntentNotSent: (intentId: string, doc: PlannedDocument) => void notSent.push([intentId, doc.displayPath]),
        }),
  });
  const said = (name: string) => calls.filter(([n]) => n === name).map(([, ...args]) => args);
  return {
    batch,
    clock,
    calls,
    gateCalls,
    said,
    finishedFirst,
    notSent,
    stops: () => stops,
    busy: () => busy,
  };
}

function doc(name: string, pages: number | undefined, extra: Partial<PlannedDocument> = {}): PlannedDocument {
  return {
    path: `/in/${name}`,
    displayPath: name,
    sha256: name,
    size: 1,
    type: 'pdf',
    contentType: 'application/pdf',
    pages,
    output: `/out/${name}.json`,
    ...extra,
  };
}

function task(name: string, pages: number | undefined = 1, extra: Partial<PlannedDocument> = {}): DocumentTask {
  return new DocumentTask(doc(name, pages, extra), T0);
}

/** The job an upload's answer opens for `name`: chunks of 3 pages, expiring an hour from T0. */
function manifest(name: string, pages = 4): JobManifest {
  const chunks = [];
  for (let first = 1; first <= pages; first += 3) chunks.push({ jobId: `${name}-c${first}`, pages: `${first}-${Math.min(pages, first + 2)}` });
  return { parentJobId: `job-${name}`, chunks, expiresAt: T0 + 3_600_000, pages, model: null };
}

/** A split task with its job open (see manifest). */
function openTask(name: string, pages = 4, extra: Partial<PlannedDocument> = {}): DocumentTask {
  const t = task(name, pages, extra);
  t.openJob(manifest(name, pages));
  return t;
}

function complete(file: string, extra: Partial<DocumentOutcome> = {}): DocumentOutcome {
  return {
    file,
    status: 'complete',
    pages: 1,
    model: 'invoice',
    output: `/out/${file}.json`,
    job_id: null,
    extraction_id: null,
    warnings: [],
    data: { total: 1 },
    credits: 1,
    ...extra,
  };
}

const upload = (t: DocumentTask): WorkItem => ({ kind: 'upload', task: t });

/** The next upload the queue would hand out at `now`, every one allowed. */
function nextUpload(batch: BatchState, now: number): DocumentTask | undefined {
  return batch.uploads.next(
    now,
    () => 'send',
    () => undefined,
  );
}

describe('documents arriving', () => {
  it('queues a new document for upload and counts it unfinished', async () => {
    const { batch } = make();
    const a = task('a.pdf');
    batch.take([a]);
    expect(batch.unfinished.has(a)).toBe(true);
    expect(nextUpload(batch, T0)).toBe(a);
    expect(batch.ledger.open.size).toBe(0);
  });

  it('serves a resumed open job from the ledger, not the upload queue', async () => {
    const { batch } = make();
    const open = openTask('open.pdf');
    batch.take([open]);
    expect([...batch.ledger.open]).toEqual([open]);
    expect(nextUpload(batch, T0)).toBeUndefined();
    expect(batch.unfinished.has(open)).toBe(true);
  });

  it('finishes at once a resumed job whose result is on disk when asked not to finalize', async () => {
    const { batch, said } = make({ settings: { finalize: false } });
    const open = openTask('open.pdf');
    open.job!.outcome = complete('open.pdf', { job_id: 'job-open.pdf' });
    batch.take([open]);
    expect(open.phase).toBe('done');
    expect(open.job!.outcome).toBeUndefined();
    expect(batch.unfinished.size).toBe(0);
    expect(batch.ledger.open.size).toBe(0);
    expect(said('documentFinished').map(([o]) => (o as DocumentOutcome).file)).toEqual(['open.pdf']);
  });

  it('keeps a resumed job whose result is on disk open for its finalize when finalizing', async () => {
    const { batch, said } = make();
    const open = openTask('open.pdf');
    open.job!.outcome = complete('open.pdf');
    batch.take([open]);
    expect([...batch.ledger.open]).toEqual([open]);
    expect(said('documentFinished')).toEqual([]);
  });

  it('does not finish a resumed job without a result when asked not to finalize', async () => {
    const { batch, said } = make({ settings: { finalize: false } });
    const open = openTask('open.pdf');
    batch.take([open]);
    expect([...batch.ledger.open]).toEqual([open]);
    expect(said('documentFinished')).toEqual([]);
  });

  it('hands the projection of request slots on from the gate', async () => {
    const { batch, gateCalls } = make();
    expect(batch.projectSlots(2, T0 + 5)).toEqual([T0 + 1, T0 + 2]);
    expect(gateCalls).toEqual([['projectSlots', 2, T0 + 5]]);
  });
});

describe('a request leaving', () => {
  it("counts an upload for its document's command, marks it uploading and commits its pages", async () => {
    const { batch, said, clock } = make({ settings: { maxCredits: 6 } });
    const a = task('a.pdf', 4);
    batch.take([a]);
    await clock.advance(5000);
    batch.sending(upload(a), false);
    expect(a.phase).toBe('uploading');
    expect(said('uploadStarted')).toEqual([[a.doc]]);
    expect(batch.spent()).toEqual({ requests: 1, credits: 0 });
    // In flight, it may open a job: the ledger counts it from when it left.
    expect(batch.ledger.loads(clock.now())).toEqual([expect.objectContaining({ id: '/in/a.pdf', expiresAtMs: T0 + 5000 + SETTINGS.ttlMs })]);
    // Its 4 pages are committed against --max-credits 6: 3 more would pass it.
    expect(batch.stops.verdict(task('b.pdf', 3))).toHaveProperty('stop');
    expect(batch.stops.verdict(task('c.pdf', 2))).toEqual({ send: true });
    expect(batch.probeTask).toBeUndefined();
  });

  it('keeps the totals of each command apart', async () => {
    const { batch } = make();
    const own = task('own.pdf');
    const theirs = task('theirs.pdf', 1, { origin: 'cmd-2' });
    batch.sending(upload(own), false);
    batch.sending(upload(theirs), false);
    batch.sending(upload(theirs), false);
    expect(batch.spent('')).toEqual({ requests: 1, credits: 0 });
    expect(batch.spent('cmd-2')).toEqual({ requests: 2, credits: 0 });
    expect(batch.spent('cmd-3')).toEqual({ requests: 0, credits: 0 });
    // A copy: changing it changes no total.
    batch.spent('cmd-2').requests = 99;
    expect(batch.spent('cmd-2').requests).toBe(2);
  });

  it('marks an upload sent past the cap as the probe, which holds the next probe back', async () => {
    const { batch, clock } = make();
    const a = task('a.pdf', 4);
    batch.slots.refused(clock.now(), 1);
    await clock.advance(120_000);
    expect(batch.slots.due(clock.now())).toBe(true);
    batch.sending(upload(a), true);
    expect(batch.probeTask).toBe(a);
    expect(batch.slots.due(clock.now())).toBe(false);
  });

  it("marks a chunk in flight, and a collect and a finalize by their job's phase", async () => {
    const { batch } = make();
    const t = openTask('open.pdf');
    const job = t.job!;
    const chunk = job.chunks[0]!;
    batch.sending({ kind: 'process', task: t, job, chunk }, false);
    expect(chunk.status).toBe('in-flight');
    expect(t.phase).toBe('open');
    batch.sending({ kind: 'collect', task: t, job }, false);
    expect(job.phase).toBe('collecting');
    batch.apply(t, [{ type: 'job-moved', job, move: 'wrote-complete' }]);
    batch.sending({ kind: 'finalize', task: t, job }, false);
    expect(job.phase).toBe('finalizing');
    expect(batch.spent()).toEqual({ requests: 3, credits: 0 });
  });
});

describe('a request answered', () => {
  it("takes an answered upload out of the ledger's uploads in flight and says it was answered", async () => {
    const { batch, said, gateCalls } = make();
    const a = task('a.pdf', 4);
    batch.sending(upload(a), false);
    batch.answered(upload(a), T0, []);
    expect(batch.ledger.loads(T0)).toEqual([]);
    expect(said('requestAnswered')).toEqual([['documents', a.doc]]);
    expect(said('requestUnreached')).toEqual([]);
    expect(said('reachability')).toEqual([]);
    expect(batch.spent()).toEqual({ requests: 1, credits: 0 });
    // Answered with no word of when it was counted: by now, and its slot is reckoned from that.
    expect(gateCalls).toEqual([['settle', T0]]);
  });

  it('counts a request whose answer has effects as reached', async () => {
    const { batch, said, gateCalls } = make();
    const a = task('a.pdf');
    batch.sending(upload(a), false);
    batch.answered(upload(a), T0, [
      { type: 'charged', credits: 1 },
      { type: 'notice', message: 'fine' },
    ]);
    expect(batch.spent()).toEqual({ requests: 1, credits: 1 });
    expect(said('requestAnswered')).toEqual([['documents', a.doc]]);
    expect(said('requestUnreached')).toEqual([]);
    expect(gateCalls).toEqual([['settle', T0]]);
  });

  it('names the endpoint of a chunk and of a collect', async () => {
    const { batch, said } = make();
    const t = openTask('open.pdf');
    const job = t.job!;
    batch.answered({ kind: 'process', task: t, job, chunk: job.chunks[0]! }, T0, []);
    batch.answered({ kind: 'collect', task: t, job }, T0, []);
    expect(said('requestAnswered')).toEqual([
      ['process', t.doc],
      ['result', t.doc],
    ]);
  });

  it('forgets a request that reached no server: not in the totals, not in the gate, and the outage is said once', async () => {
    const { batch, said, gateCalls, clock } = make();
    const a = task('a.pdf');
    const b = task('b.pdf');
    batch.sending(upload(a), false);
    await clock.advance(1000);
    batch.answered(upload(a), T0 + 10, [{ type: 'unreached', detail: 'ECONNREFUSED' }]);
    expect(batch.spent()).toEqual({ requests: 0, credits: 0 });
    expect(gateCalls).toEqual([['unsent', T0 + 10]]);
    expect(said('requestUnreached')).toEqual([['documents', a.doc]]);
    expect(said('requestAnswered')).toEqual([]);
    expect(batch.unreachableSince).toBe(T0 + 1000);
    expect(said('reachability')).toEqual([[{ reachable: false, since: T0 + 1000, detail: 'ECONNREFUSED' }]]);

    await clock.advance(1000);
    batch.sending(upload(b), false);
    batch.answered(upload(b), T0 + 20, [{ type: 'unreached', detail: 'EHOSTUNREACH' }]);
    expect(batch.unreachableSince).toBe(T0 + 1000);
    expect(said('reachability')).toHaveLength(1);

    // The first answer ends the outage, and says how long it lasted.
    await clock.advance(30_000);
    batch.sending(upload(b), false);
    batch.answered(upload(b), T0 + 30, []);
    expect(said('reachability')[1]).toEqual([{ reachable: true, downMs: 31_000 }]);
    expect(batch.unreachableSince).toBeUndefined();
    batch.answered(upload(b), T0 + 40, []);
    expect(said('reachability')).toHaveLength(2);
    expect(batch.spent()).toEqual({ requests: 1, credits: 0 });
  });

  it('ends the probe with its answer, whatever it was, so that the next may go', async () => {
    const { batch, clock } = make();
    const probe = task('probe.pdf', 4);
    const other = task('other.pdf', 4);
    batch.slots.refused(clock.now(), 1);
    await clock.advance(120_000);
    batch.sending(upload(probe), true);
    batch.sending(upload(other), false);
    batch.answered(upload(other), clock.now(), []);
    expect(batch.probeTask).toBe(probe);
    expect(batch.slots.due(clock.now())).toBe(false);
    batch.answered(upload(probe), clock.now(), [{ type: 'upload-again', at: clock.now() }]);
    expect(batch.probeTask).toBeUndefined();
    expect(batch.slots.due(clock.now())).toBe(true);
  });

  it("applies the answer's effects before the probe ends: an accepted probe frees a slot", async () => {
    const { batch, clock, said } = make();
    const probe = task('probe.pdf', 4);
    batch.ledger.lowerCap(clock.now()); // no job known: every slot held by others
    batch.slots.refused(clock.now(), 0);
    expect(batch.ledger.heldByOthers).toBe(5);
    await clock.advance(120_000);
    batch.sending(upload(probe), true);
    batch.answered(upload(probe), clock.now(), [{ type: 'job-opened', job: manifest('p', 4) }]);
    expect(batch.slots.active).toBe(false);
    expect(batch.ledger.heldByOthers).toBe(4);
    expect(said('slotsHeld')).toEqual([[4, undefined]]);
    expect(said('documentStarted')).toEqual([[probe.doc, 2]]);
    expect(batch.ledger.open.has(probe)).toBe(true);
    expect(batch.probeTask).toBeUndefined();
  });
});

describe('the effects a flow returns', () => {
  it("counts a charge for the document's command and tells the display", async () => {
    const { batch, said } = make();
    const own = task('own.pdf');
    const theirs = task('theirs.pdf', 1, { origin: 'cmd-2' });
    batch.apply(own, [{ type: 'charged', credits: 3 }]);
    batch.apply(theirs, [{ type: 'charged', credits: 2 }]);
    batch.apply(undefined, [{ type: 'charged', credits: 7 }]);
    expect(batch.spent()).toEqual({ requests: 0, credits: 3 });
    expect(batch.spent('cmd-2')).toEqual({ requests: 0, credits: 2 });
    expect(said('creditsCharged')).toEqual([
      [3, own.doc],
      [2, theirs.doc],
      [7, undefined],
    ]);
  });

  it('finishes the document a "finished" effect names, and ignores one without a document', async () => {
    const { batch, said } = make();
    const a = task('a.pdf');
    batch.take([a]);
    batch.apply(undefined, [{ type: 'finished', outcome: complete('x.pdf') }]);
    expect(said('documentFinished')).toEqual([]);
    batch.apply(a, [{ type: 'finished', outcome: complete('a.pdf') }]);
    expect(a.phase).toBe('done');
    expect(said('documentFinished').map(([o]) => (o as DocumentOutcome).file)).toEqual(['a.pdf']);
  });

  it('opens the job of a document that is not the probe without touching the slots', async () => {
    const { batch, said } = make();
    const t = task('big.pdf', 7);
    batch.ledger.lowerCap(T0);
    batch.apply(t, [{ type: 'job-opened', job: manifest('big.pdf', 7) }]);
    expect(t.phase).toBe('open');
    expect(t.job).toMatchObject({ parentJobId: 'job-big.pdf', phase: 'working', pages: 7, expiresAt: T0 + 3_600_000 });
    expect(t.job!.chunks.map((chunk) => [chunk.jobId, chunk.status])).toEqual([
      ['big.pdf-c1', 'pending'],
      ['big.pdf-c4', 'pending'],
      ['big.pdf-c7', 'pending'],
    ]);
    expect(batch.ledger.open.has(t)).toBe(true);
    expect(said('documentStarted')).toEqual([[t.doc, 3]]);
    expect(said('slotsHeld')).toEqual([]);
    expect(batch.ledger.heldByOthers).toBe(5);
  });

  it('opens nothing for a "job-opened" that names no document', async () => {
    const { batch, said } = make();
    batch.apply(undefined, [{ type: 'job-opened', job: manifest('a.pdf') }]);
    expect(batch.ledger.open.size).toBe(0);
    expect(said('documentStarted')).toEqual([]);
  });

  it('tells the display of a chunk done, with how many of how many', async () => {
    const { batch, said } = make();
    const t = openTask('big.pdf', 7);
    t.job!.chunks[0]!.status = 'done';
    t.job!.chunks[2]!.status = 'done';
    batch.apply(t, [{ type: 'chunk-done' }]);
    batch.apply(task('plain.pdf'), [{ type: 'chunk-done' }]);
    batch.apply(undefined, [{ type: 'chunk-done' }]);
    expect(said('chunkDone')).toEqual([[t.doc, 2, 3]]);
  });

  it("tells the display of a failed chunk without the effect's type", async () => {
    const { batch, said } = make();
    const t = openTask('big.pdf');
    const failed = { file: 'big.pdf', pages: '1-3', code: 'extraction_failed', failures: 1, tries: 3, retryAt: T0 + 5000 };
    batch.apply(t, [{ type: 'chunk-failed', ...failed }]);
    batch.apply(undefined, [{ type: 'chunk-failed', ...failed, retryAt: undefined }]);
    expect(said('chunkFailed')).toEqual([
      [failed, t.doc],
      [{ ...failed, retryAt: undefined }, undefined],
    ]);
  });

  it('puts an upload that was not accepted back in the queue at its time, its pages no longer committed', async () => {
    const { batch, clock } = make({ settings: { maxCredits: 4 } });
    const a = task('a.pdf', 4);
    batch.take([a]);
    expect(nextUpload(batch, T0)).toBe(a);
    batch.sending(upload(a), false);
    expect(batch.stops.verdict(task('b.pdf', 1))).toHaveProperty('stop');
    batch.answered(upload(a), clock.now(), [{ type: 'upload-again', at: T0 + 9000 }]);
    expect(a.phase).toBe('queued');
    expect(a.readyAt).toBe(T0 + 9000);
    expect(batch.stops.verdict(task('c.pdf', 4))).toEqual({ send: true });
    const soonest: number[] = [];
    expect(
      batch.uploads.next(
        T0 + 8999,
        () => 'send',
        (at) => soonest.push(at),
      ),
    ).toBeUndefined();
    expect(soonest).toEqual([T0 + 9000]);
    expect(nextUpload(batch, T0 + 9000)).toBe(a);
  });

  it('does not send again a document already finished', async () => {
    const { batch } = make({ settings: { maxCredits: 4 } });
    const a = task('a.pdf', 4);
    batch.take([a]);
    batch.sending(upload(a), false);
    batch.finish(a, complete('a.pdf'));
    batch.apply(a, [{ type: 'upload-again', at: T0 }]);
    expect(a.phase).toBe('done');
    expect(a.readyAt).toBe(0);
    expect(nextUpload(batch, T0 + 60_000)).toBeUndefined();
    expect(batch.stops.verdict(task('b.pdf', 1))).toHaveProperty('stop');
  });

  it('stops admitting every document when the service says the budget ran out', async () => {
    const { batch } = make();
    batch.apply(task('a.pdf'), [{ type: 'budget-exhausted', code: 'request_cap_reached', message: 'no requests left', file: 'a.pdf' }]);
    expect(batch.stops.exhausted).toEqual({ code: 'request_cap_reached', message: 'the service refused a.pdf (no requests left)' });
    expect(batch.stops.admitNothing).toBe(true);
  });

  it('after insufficient credits, still admits documents smaller than the one refused', async () => {
    const { batch } = make();
    batch.apply(undefined, [{ type: 'budget-exhausted', code: 'insufficient_credits', message: 'short', pages: 5, file: 'big.pdf' }]);
    expect(batch.stops.admitNothing).toBe(false);
    expect(batch.stops.verdict(task('small.pdf', 4))).toEqual({ send: true });
    expect(batch.stops.verdict(task('same.pdf', 5))).toHaveProperty('skip');
  });

  it('halts intake once when results cannot be written, and says so once', async () => {
    const { batch, said } = make();
    const effect: FlowEffect = { type: 'output-unwritable', code: 'output_unwritable', message: 'cannot write /out/a.json: disk full' };
    batch.apply(task('a.pdf'), [effect]);
    batch.apply(task('b.pdf'), [effect]);
    expect(batch.stops.halted).toEqual({ code: 'output_unwritable', message: 'cannot write /out/a.json: disk full' });
    expect(batch.stops.admitNothing).toBe(true);
    expect(said('notice')).toEqual([['cannot write /out/a.json: disk full; no further files are admitted (they would be paid for and lost)']]);
  });

  it('stops the batch on a fatal error', async () => {
    const { batch, stops } = make();
    const error = new Error('invalid key');
    batch.apply(task('a.pdf'), [{ type: 'fatal', error }]);
    expect(batch.stopping).toBe(true);
    expect(batch.fatalError).toBe(error);
    expect(stops()).toBe(1);
  });

  it('lowers the cap when the server counts jobs of others, and says so once, with when it asks again', async () => {
    const { batch, said, clock } = make();
    const mine = openTask('mine.pdf');
    batch.take([mine]);
    batch.apply(task('b.pdf', 4), [{ type: 'server-jobs-full' }]);
    expect(batch.ledger.openJobCap).toBe(1);
    expect(batch.slots.active).toBe(true);
    expect(said('notice')).toEqual([
      [
        "4 of the key's 5 job slots are held by jobs outside this run; documents that split wait for one (asking again with backoff, from 1m 00s; for up to 30m 00s), the rest go on",
      ],
    ]);
    expect(said('slotsHeld')).toEqual([[4, T0 + 60_000]]);
    await clock.advance(60_000);
    batch.apply(task('c.pdf', 4), [{ type: 'server-jobs-full' }]);
    expect(said('notice')).toHaveLength(1);
    expect(said('slotsHeld')[1]).toEqual([4, T0 + 60_000 + 120_000]);
  });

  it("gives up waiting for a slot after the run's own wait, when others hold every slot", async () => {
    const { batch } = make({ settings: { slotWaitMs: 600_000 } });
    batch.apply(task('b.pdf', 4), [{ type: 'server-jobs-full' }]);
    expect(batch.ledger.openJobCap).toBe(0);
    expect(batch.slots.giveUpAt).toBe(T0 + 600_000);
  });

  it('counts an upload whose answer was lost as a job that may hold a slot until it expires', async () => {
    const { batch } = make();
    batch.apply(task('a.pdf', 4), [{ type: 'possible-job', expiresAt: T0 + 1000 }]);
    expect(batch.ledger.loads(T0)).toEqual([{ id: 'phantom-0', expiresAtMs: T0 + 1000, requestsLeft: 0 }]);
  });

  it('passes a pause, a 429 and a restamp to the gate, and a 503 to the in-flight budget', async () => {
    const { batch, said, gateCalls, busy } = make();
    batch.apply(task('a.pdf'), [
      { type: 'pause', until: T0 + 30_000, reason: 'rate limit' },
      { type: 'rate-limited', limit: 10 },
      { type: 'rate-limited' },
      { type: 'restamp', recordedAt: T0 + 1, countedAt: T0 + 2 },
      { type: 'server-busy' },
    ]);
    expect(gateCalls).toEqual([
      ['pauseUntil', T0 + 30_000, 'rate limit'],
      ['rejected', 10],
      ['rejected', undefined],
      ['restamp', T0 + 1, T0 + 2],
    ]);
    expect(said('waiting')).toEqual([[T0 + 30_000, 'rate limit']]);
    expect(busy()).toBe(1);
  });

  it("moves a job's phase, in the order the effects come, and throws on a move its phase does not allow", async () => {
    const { batch } = make();
    const t = openTask('big.pdf');
    const job = t.job!;
    batch.take([t]);
    batch.sending({ kind: 'collect', task: t, job }, false);
    // Answered, then lost (as a collect's answer says it): the loss closes the working job the answer left.
    batch.apply(t, [
      { type: 'job-moved', job, move: 'collect-answered' },
      { type: 'job-lost', job, code: 'job_expired', message: 'gone' },
    ]);
    expect(job.phase).toBe('closed');
    expect(t.phase).toBe('queued');
    expect(() => batch.apply(t, [{ type: 'job-moved', job, move: 'collect-answered' }])).toThrow(
      new JobPhaseError(job.parentJobId, 'closed', 'collect-answered'),
    );
    expect(job.phase).toBe('closed');
  });

  it('passes a notice on with the document it concerns', async () => {
    const { batch, said } = make();
    const a = task('a.pdf');
    batch.apply(a, [{ type: 'notice', message: 'hello' }]);
    batch.apply(undefined, [{ type: 'notice', message: 'general' }]);
    expect(said('notice')).toEqual([
      ['hello', a.doc],
      ['general', undefined],
    ]);
  });
});

describe('a display that listens only for finished documents', () => {
  it('is told of them, and nothing else is asked of it', async () => {
    const clock = new FakeClock(T0);
    const finished: string[] = [];
    const gate = {
      projectSlots: () => [],
      unsent: () => undefined,
      settle: () => undefined,
      pauseUntil: () => undefined,
      rejected: () => undefined,
      restamp: () => undefined,
    };
    const batch = new BatchState({
      clock,
      events: { documentFinished: (outcome) => void finished.push(outcome.file) },
      settings: SETTINGS,
      gate: gate as unknown as ConstructorParameters<typeof BatchState>[0]['gate'],
      serverBusy: () => undefined,
      phantomJobs: [],
      keepOutcomes: false,
      onStop: () => undefined,
    });
    const plain = task('plain.pdf');
    const big = task('big.pdf', 7);
    const again = openTask('again.pdf');
    batch.take([plain, big, again]);
    batch.sending(upload(plain), false);
    batch.answered(upload(plain), T0, [{ type: 'unreached', detail: 'ECONNREFUSED' }]);
    batch.answered(upload(plain), T0, [{ type: 'charged', credits: 1 }]);
    batch.apply(big, [
      { type: 'job-opened', job: manifest('big.pdf', 7) },
      { type: 'chunk-done' },
      { type: 'chunk-failed', file: 'big.pdf', pages: '1-3', code: 'extraction_failed', failures: 1, tries: 3 },
      { type: 'output-unwritable', code: 'output_write_failed', message: 'disk full' },
      { type: 'server-jobs-full' },
      { type: 'pause', until: T0 + 1000, reason: 'rate limit' },
      { type: 'notice', message: 'hello' },
    ]);
    batch.slots.refused(T0, 1);
    batch.sending(upload(task('probe.pdf', 4)), true);
    const probe = batch.probeTask!;
    batch.apply(probe, [{ type: 'job-opened', job: manifest('probe.pdf', 4) }]);
    batch.apply(again, [{ type: 'job-lost', job: again.job!, code: 'job_expired', message: 'gone' }]);
    batch.finish(plain, complete('plain.pdf'));
    expect(finished).toEqual(['plain.pdf']);
    expect(again.phase).toBe('queued');
  });
});

describe('a job the server lost', () => {
  const lost = (t: DocumentTask, job = t.job!): FlowEffect => ({ type: 'job-lost', job, code: 'job_expired', message: 'job gone' });

  it('uploads the document again as a new job, once, and says so', async () => {
    const { batch, said, clock } = make();
    const t = openTask('big.pdf');
    batch.take([t]);
    await clock.advance(4000);
    const job = t.job!;
    batch.apply(t, [lost(t)]);
    expect(job.phase).toBe('closed');
    expect(batch.ledger.open.has(t)).toBe(false);
    expect(t.reuploads).toBe(1);
    expect(t.phase).toBe('queued');
    expect(t.job).toBeUndefined();
    expect(t.readyAt).toBe(T0 + 4000);
    expect(said('notice')).toEqual([['big.pdf: job job-big.pdf is gone (job_expired); uploading it again as a new job']]);
    expect(nextUpload(batch, T0 + 4000)).toBe(t);
    expect(said('documentFinished')).toEqual([]);
  });

  it('acts once when several chunks learn that the same job is gone', async () => {
    const { batch, said } = make();
    const t = openTask('big.pdf');
    batch.take([t]);
    const job = t.job!;
    batch.apply(t, [lost(t, job), lost(t, job)]);
    expect(t.reuploads).toBe(1);
    expect(said('notice')).toHaveLength(1);
  });

  it('ignores the loss of a job the document no longer has', async () => {
    const { batch, said } = make();
    const t = openTask('big.pdf');
    batch.take([t]);
    const old = openTask('big.pdf').job!;
    batch.apply(t, [lost(t, old)]);
    expect(t.phase).toBe('open');
    expect(t.job!.phase).toBe('working');
    expect(batch.ledger.open.has(t)).toBe(true);
    expect(said('notice')).toEqual([]);
  });

  it('does not upload again a document that already finished', async () => {
    const { batch, said } = make();
    const t = openTask('big.pdf');
    batch.take([t]);
    batch.finish(t, { ...complete('big.pdf'), status: 'failed' });
    batch.apply(t, [lost(t)]);
    expect(t.phase).toBe('done');
    expect(t.reuploads).toBe(0);
    expect(said('notice')).toEqual([]);
    expect(nextUpload(batch, T0 + 60_000)).toBeUndefined();
    expect(said('documentFinished')).toHaveLength(1);
  });

  it('ignores a lost job that names no document', async () => {
    const { batch, said } = make();
    const t = openTask('big.pdf');
    batch.take([t]);
    batch.apply(undefined, [lost(t)]);
    expect(t.phase).toBe('open');
    expect(said('notice')).toEqual([]);
  });

  it('gives a document up when its job is lost a second time', async () => {
    const { batch, said } = make();
    const t = openTask('big.pdf');
    t.reuploads = 1;
    t.credits = 2;
    batch.take([t]);
    batch.apply(t, [lost(t)]);
    expect(t.phase).toBe('done');
    const [[outcome]] = said('documentFinished') as [[DocumentOutcome]];
    expect(outcome).toMatchObject({
      file: 'big.pdf',
      status: 'failed',
      job_id: 'job-big.pdf',
      credits: 2,
      error: { code: 'job_expired', message: 'job gone (the job was lost twice; giving up on this file)' },
    });
    expect(nextUpload(batch, T0 + 60_000)).toBeUndefined();
    // Gone from the server: it holds no slot.
    expect(batch.ledger.loads(T0)).toEqual([]);
  });

  it('gives up a job collected by its id alone: there is no file to upload again', async () => {
    const { batch, said } = make();
    const t = openTask('job_x', 4, { path: '' });
    batch.take([t]);
    batch.apply(t, [lost(t)]);
    const [[outcome]] = said('documentFinished') as [[DocumentOutcome]];
    expect(outcome.error).toEqual({
      code: 'job_expired',
      message: 'job gone; its source file is not in the journal, so it cannot be uploaded again',
      details: { kind: 'source_unknown' },
    });
    expect(t.reuploads).toBe(0);
  });
});

describe('stopping', () => {
  it('tells the runner once, and keeps the first fatal error', async () => {
    const { batch, stops } = make();
    batch.stop();
    expect(batch.stopping).toBe(true);
    expect(batch.fatalError).toBeUndefined();
    const first = new Error('first');
    batch.stop(first);
    batch.stop(new Error('second'));
    batch.stop();
    expect(stops()).toBe(1);
    expect(batch.fatalError).toBe(first);
  });

  it('settles the documents the scheduler skipped, noting the stop that skipped them', async () => {
    const { batch, said } = make();
    const a = task('a.pdf');
    const b = task('b.pdf');
    batch.take([a, b]);
    const reason = { code: 'max_credits_reached', message: 'budget reached' };
    batch.skipped([{ task: a, outcome: { ...complete('a.pdf'), status: 'skipped' }, stop: reason }]);
    expect(batch.stops.exhausted).toEqual(reason);
    expect(a.phase).toBe('done');
    expect(said('documentFinished')).toHaveLength(1);
  });

  it('settles a skipped document without a stop as no budget stop', async () => {
    const { batch } = make();
    const a = task('a.pdf');
    batch.take([a]);
    batch.skipped([{ task: a, outcome: { ...complete('a.pdf'), status: 'skipped' } }]);
    expect(batch.stops.exhausted).toBeUndefined();
    expect(a.phase).toBe('done');
  });
});

describe('a document finishing', () => {
  it('is reported once, to the hook before the display, keeping the summary without its data', async () => {
    const { batch, said, finishedFirst } = make();
    const a = task('a.pdf');
    batch.take([a]);
    const outcome = complete('a.pdf');
    batch.finish(a, outcome);
    batch.finish(a, complete('a.pdf', { status: 'failed' }));
    expect(finishedFirst).toEqual(['a.pdf:complete:before:data']);
    expect(said('documentFinished')).toEqual([[outcome, a.doc]]);
    const { data: _data, ...summary } = outcome;
    expect(a.outcome).toEqual(summary);
    expect(batch.finishedOutcomes).toEqual([summary]);
    expect(batch.unfinished.size).toBe(0);
  });

  it('keeps no outcome of another command, nor any when asked not to', async () => {
    const shared = make();
    const theirs = task('theirs.pdf', 1, { origin: 'cmd-2' });
    shared.batch.take([theirs]);
    shared.batch.finish(theirs, complete('theirs.pdf'));
    expect(shared.said('documentFinished')).toHaveLength(1);
    expect(shared.batch.finishedOutcomes).toEqual([]);

    const lean = make({ keepOutcomes: false });
    const own = task('own.pdf');
    lean.batch.finish(own, complete('own.pdf'));
    expect(lean.said('documentFinished')).toHaveLength(1);
    expect(lean.batch.finishedOutcomes).toEqual([]);
  });

  it('reports without the optional hooks', async () => {
    const { batch, said } = make({ withoutHooks: true });
    const a = task('a.pdf');
    a.prepared = { body: Buffer.from('x'), intentId: 'intent-1', intentAt: T0 };
    batch.finish(a, complete('a.pdf'));
    expect(said('documentFinished')).toHaveLength(1);
    expect(a.prepared).toBeUndefined();
  });

  it('ends its upload in flight and its open job, and counts an unfinalized job as holding a slot until it expires', async () => {
    const { batch } = make();
    const t = openTask('big.pdf');
    batch.take([t]);
    const other = task('other.pdf', 4);
    batch.sending(upload(other), false);
    batch.finish(t, complete('big.pdf'));
    batch.finish(other, complete('other.pdf'));
    expect(batch.ledger.open.size).toBe(0);
    expect(batch.ledger.loads(T0)).toEqual([{ id: 'phantom-0', expiresAtMs: T0 + 3_600_000, requestsLeft: 0 }]);
  });

  it('counts no slot for a job that was finalized', async () => {
    const { batch } = make();
    const t = openTask('big.pdf');
    const job = t.job!;
    batch.take([t]);
    batch.sending({ kind: 'collect', task: t, job }, false);
    batch.apply(t, [{ type: 'job-moved', job, move: 'wrote-complete' }]);
    job.outcome = complete('big.pdf');
    batch.sending({ kind: 'finalize', task: t, job }, false);
    batch.apply(t, [
      { type: 'job-moved', job, move: 'finalized' },
      { type: 'finished', outcome: complete('big.pdf') },
    ]);
    expect(job.phase).toBe('closed');
    expect(batch.ledger.loads(T0)).toEqual([]);
    expect(t.job!.outcome).toBeUndefined();
  });

  it('counts a slot, until it expires, for a job that finished before it was closed', async () => {
    const { batch } = make();
    const t = openTask('big.pdf');
    const job = t.job!;
    batch.take([t]);
    batch.sending({ kind: 'collect', task: t, job }, false);
    batch.apply(t, [
      { type: 'job-moved', job, move: 'wrote-complete' },
      { type: 'finished', outcome: complete('big.pdf') },
    ]);
    expect(batch.ledger.loads(T0)).toEqual([{ id: 'phantom-0', expiresAtMs: T0 + 3_600_000, requestsLeft: 0 }]);
  });

  it('tells the journal of an upload intent that was never sent', async () => {
    const { batch, notSent } = make();
    const a = task('a.pdf');
    const b = task('b.pdf');
    a.prepared = { body: Buffer.from('x'), intentId: 'intent-1', intentAt: T0 };
    b.prepared = { body: Buffer.from('x'), intentId: undefined, intentAt: T0 };
    batch.finish(a, complete('a.pdf', { status: 'skipped' }));
    batch.finish(b, complete('b.pdf', { status: 'skipped' }));
    expect(notSent).toEqual([['intent-1', 'a.pdf']]);
    expect(a.prepared).toBeUndefined();
    expect(b.prepared).toBeUndefined();
  });
});

describe('identical files riding on one request', () => {
  it('gives each copy its own line and result file, with nothing charged', async () => {
    const { batch, said } = make();
    const lead = task('a.pdf');
    const copy = doc('copy-of-a.pdf', 1);
    lead.copies.push(copy);
    batch.take([lead]);
    batch.finish(lead, complete('a.pdf', { credits: 2, service_charge: { reported: 2, expected: 2 } }));
    const lines = said('documentFinished') as [DocumentOutcome, PlannedDocument][];
    expect(lines).toHaveLength(2);
    expect(lines[1]![1]).toBe(copy);
    expect(lines[1]![0]).toEqual({
      file: 'copy-of-a.pdf',
      status: 'complete',
      pages: 1,
      model: 'invoice',
      output: '/out/copy-of-a.pdf.json',
      job_id: null,
      extraction_id: null,
      warnings: [],
      data: { total: 1 },
      credits: 0,
    });
    expect(batch.finishedOutcomes.map((o) => [o.file, o.credits])).toEqual([
      ['a.pdf', 2],
      ['copy-of-a.pdf', 0],
    ]);
  });

  it('gives a copy no result file when the document got none', async () => {
    const { batch, said } = make();
    const lead = task('a.pdf');
    lead.copies.push(doc('copy.pdf', 1));
    batch.finish(lead, { ...complete('a.pdf'), status: 'failed', output: null });
    const lines = said('documentFinished') as [DocumentOutcome][];
    expect(lines[1]![0]).toMatchObject({ file: 'copy.pdf', output: null, status: 'failed' });
    expect(lines[1]![0]).not.toHaveProperty('reused');
  });

  it('reports the copy whose result file could not be written with why', async () => {
    const { batch, said } = make();
    const lead = task('a.pdf');
    const copy = doc('copy.pdf', 1);
    const why = { ...complete('copy.pdf'), status: 'failed' as const, output: null, error: { code: 'output_unwritable', message: 'disk full' } };
    lead.copies.push(copy);
    lead.copyFailures.set(copy, why);
    batch.finish(lead, complete('a.pdf'));
    expect((said('documentFinished') as [DocumentOutcome][])[1]![0]).toBe(why);
  });

  it("says what reusing another command's answer saved, only for an answered one", async () => {
    const { batch, said } = make();
    const lead = task('a.pdf', 1, { origin: 'cmd-2' });
    const mine = doc('mine.pdf', 1);
    const partialLead = task('p.pdf', 1, { origin: 'cmd-2' });
    const partialMine = doc('mine-p.pdf', 1, { origin: '' });
    const failedLead = task('f.pdf', 1, { origin: 'cmd-2' });
    const failedMine = doc('mine-f.pdf', 1);
    const sameLead = task('s.pdf', 1, { origin: '' });
    const sameMine = doc('mine-s.pdf', 1);
    lead.copies.push(mine);
    partialLead.copies.push(partialMine);
    failedLead.copies.push(failedMine);
    sameLead.copies.push(sameMine);
    batch.finish(lead, complete('a.pdf', { credits: 3 }));
    batch.finish(partialLead, complete('p.pdf', { status: 'partial', credits: 2 }));
    batch.finish(failedLead, complete('f.pdf', { status: 'failed', credits: 1 }));
    batch.finish(sameLead, complete('s.pdf', { credits: 1 }));
    const byFile = new Map((said('documentFinished') as [DocumentOutcome][]).map(([o]) => [o.file, o]));
    const reused = 'the same content was extracted for another command running beside this one';
    expect(byFile.get('mine.pdf')).toMatchObject({ reused, saved_credits: 3, credits: 0 });
    expect(byFile.get('mine-p.pdf')).toMatchObject({ reused, saved_credits: 2, credits: 0 });
    expect(byFile.get('mine-f.pdf')).not.toHaveProperty('reused');
    expect(byFile.get('mine-f.pdf')).not.toHaveProperty('saved_credits');
    expect(byFile.get('mine-s.pdf')).not.toHaveProperty('reused');
    expect(byFile.get('a.pdf')).not.toHaveProperty('reused');
  });
});
