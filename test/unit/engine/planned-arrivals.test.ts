/**
 * A watched folder's first look is one arrival of every file already in it:
 * 100,000 files would be planned (read, hashed, held as documents) at once.
 * It is planned a slice at a time, and the next slice waits for room in the
 * running window, as extract's slices do.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeTinyPngs } from '../../../scripts/bench/files.js';
import { replayJournal } from '../../../src/batch/journal-records.js';
import { plannedArrivals } from '../../../src/engine/arrivals.js';
import { ArrivalPlanner } from '../../../src/engine/resume-tasks.js';
import { PLAN_SLICE, RunningWindow } from '../../../src/engine/running-window.js';
import { ModelRules } from '../../../src/engine/model-rules.js';

const dir = mkdtempSync(join(tmpdir(), 'planned-arrivals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('plannedArrivals', () => {
  it('plans a first look at 1,200 files 500 at a time, each slice only once the runner has room for it', async () => {
    const paths: string[] = writeTinyPngs(join(dir, 'in'), 1_200, { prefix: 'first-look' });
    const running = new RunningWindow(PLAN_SLICE);
    const asked: number[] = [];
    const roomFor = running.roomFor.bind(running);
    running.roomFor = (count, stop) => {
      asked.push(count);
      return roomFor(count, stop);
    };
    let arrived = 0;
    const arrivals = plannedArrivals(
      (async function* () {
        yield paths;
      })(),
      {
        cwd: dir,
        root: join(dir, 'in'),
        plan: { outDir: join(dir, 'out'), windows: [], ttlMs: 7_200_000, marginMs: 60_000, models: ModelRules.none() },
        planner: new ArrivalPlanner(replayJournal([]), () => 0, { storeDb: false, force: false, dedupe: true }),
        knownAnswers: 10_000,
        arrived: () => void (arrived += 1),
        rejected: (outcome) => expect.fail(`rejected ${outcome.file}`),
        reused: (outcome) => expect.fail(`reused ${outcome.file}`),
        running,
      },
    );

    const first = await arrivals.next();
    expect(first.value).toHaveLength(PLAN_SLICE);
    expect(arrived).toBe(PLAN_SLICE); // not 1,200: the rest is not read yet

    // The runner finishes the first slice: room for the next.
    const second = arrivals.next();
    for (const task of first.value ?? []) task.phase = 'done';
    running.changed();
    expect((await second).value).toHaveLength(PLAN_SLICE);
    for (const task of (await second).value ?? []) task.phase = 'done';
    running.changed();
    expect((await arrivals.next()).value).toHaveLength(200);
    expect(await arrivals.next()).toMatchObject({ done: true });
    expect(asked).toEqual([500, 500, 200]);
  });
});
