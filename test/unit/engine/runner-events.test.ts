/**
 * The order a command's runner tells its layers (engine/batch-session.ts
 * `runnerEvents`): the hub's routing, then the command's parts, then the
 * front door's tally and display. Each of these layers is tested on its own
 * elsewhere; here, that the order is the one that keeps another command's
 * documents out of this command's parts and counts.
 */
import { describe, expect, it } from 'vitest';
import type { BatchEvents, DocumentOutcome, PlannedDocument } from '../../../src/batch/batch-types.js';
import { BATCH_EVENTS, composeEvents } from '../../../src/batch/event-sink.js';
import { runnerEvents } from '../../../src/engine/batch-session.js';
import type { HostHub } from '../../../src/engine/host/hub.js';
import { PartResults } from '../../../src/engine/parts.js';
import { RunTally } from '../../../src/engine/run-tally.js';
import { writeFileAtomically } from '../../../src/store/atomic-write.js';
import { answered, statement } from '../../helpers/part-statement.js';

const ONE_AM = Date.parse('2026-11-28T01:00:00Z');

describe('what a hosting command’s runner tells, in order', () => {
  it('another command’s document, named like one of this command’s parts, goes to the hub: neither held as the part, nor counted, nor shown', async () => {
    const { dir, parts } = statement();
    const told: string[] = [];
    const hub = {
      tell: (doc: PlannedDocument, news: { type: string }) => told.push(`${doc.displayPath} ${news.type}`),
      finished: (outcome: DocumentOutcome, doc: PlannedDocument) => (doc.origin ? (told.push(`${outcome.file} finished`), true) : false),
      afterFinish: () => undefined,
    } as unknown as HostHub;
    const shown: string[] = [];
    const display: BatchEvents = { documentFinished: (outcome) => shown.push(outcome.file), requestSent: (endpoint) => shown.push(endpoint) };
    const tally = new RunTally(dir);
    const results = new PartResults(parts, false, writeFileAtomically, () => ONE_AM);
    const { events, onFinished } = runnerEvents({ events: composeEvents(BATCH_EVENTS, display, [tally.counting]), host: hub }, [results.joining], undefined);

    const theirs: PlannedDocument = { ...parts[1]!, origin: 'c1' };
    const theirOutcome = await answered(theirs, 'complete');
    events.requestSent?.('documents', theirs);
    events.documentFinished(theirOutcome, theirs);
    onFinished?.(theirOutcome, theirs);
    events.documentFinished(await answered(parts[0]!, 'complete'), parts[0]);
    await results.settled();
    expect(shown).toEqual([]);
    expect(tally.total).toBe(0);
    expect(tally.requests).toBe(0);
    expect(told).toEqual(['in/statement.pdf [pages 151 of 151] request', 'in/statement.pdf [pages 151 of 151] finished']);

    events.requestSent?.('documents', parts[1]);
    events.documentFinished(await answered(parts[1]!, 'complete'), parts[1]);
    await results.settled();
    expect(shown).toEqual(['documents', 'in/statement.pdf']);
    expect(tally.counts.complete).toBe(1);
    expect(tally.total).toBe(1);
    expect(tally.requests).toBe(1);
  });
});
