import { describe, expect, it } from 'vitest';
import type { BatchEvents, DocumentOutcome, PlannedDocument } from '../../../src/batch/batch-types.js';
import { BATCH_EVENTS, composeEvents, type EventLayer } from '../../../src/batch/event-sink.js';

const doc = { displayPath: 'a.pdf' } as PlannedDocument;
const outcome = (file: string): DocumentOutcome => ({ file, status: 'complete' }) as DocumentOutcome;

type Call = { name: string; args: unknown[] };

/** A sink with every callback, each noting what it was told (and on what `this`, so a method called off its object shows). */
function recordingSink(): { sink: Required<BatchEvents>; calls: Call[]; receivers: unknown[] } {
  const calls: Call[] = [];
  const receivers: unknown[] = [];
  const sink = {} as Record<string, (...args: unknown[]) => void>;
  for (const name of BATCH_EVENTS.names)
    sink[name] = function (this: unknown, ...args: unknown[]) {
      calls.push({ name, args });
      receivers.push(this);
    };
  return { sink: sink as unknown as Required<BatchEvents>, calls, receivers };
}

/** A layer that notes `tag` for every callback and passes each on. */
function notingLayer(tag: string, log: string[], except: readonly string[] = []): EventLayer {
  const layer: Record<string, (next: (...args: unknown[]) => void, ...args: unknown[]) => void> = {};
  for (const name of BATCH_EVENTS.names) {
    if (except.includes(name)) continue;
    layer[name] = (next, ...args) => {
      log.push(`${tag}:${name}`);
      next(...args);
    };
  }
  return layer as EventLayer;
}

describe('composing a run’s events from layers', () => {
  it('tells the layers in the order given, then the sink', () => {
    const log: string[] = [];
    const sink: BatchEvents = { documentFinished: (finished) => log.push(`sink:${finished.file}`) };
    const events = composeEvents(BATCH_EVENTS, sink, [
      { documentFinished: (next, finished, d) => (log.push(`tally:${finished.file}`), next(finished, d)) },
      { documentFinished: (next, finished, d) => (log.push(`parts:${finished.file}`), next(finished, d)) },
      { documentFinished: (next, finished, d) => (log.push(`hub:${finished.file}`), next(finished, d)) },
    ]);
    events.documentFinished(outcome('a.pdf'), doc);
    expect(log).toEqual(['tally:a.pdf', 'parts:a.pdf', 'hub:a.pdf', 'sink:a.pdf']);
  });

  it('lets a layer change what the layers below it are told', () => {
    const told: string[] = [];
    const events = composeEvents(BATCH_EVENTS, { documentFinished: (finished) => told.push(finished.file) }, [
      { documentFinished: (next, finished) => next(outcome(`${finished.file} (source)`)) },
    ]);
    events.documentFinished(outcome('part 1'));
    expect(told).toEqual(['part 1 (source)']);
  });

  it('tells nothing below a layer that swallows an event, and everything else on', () => {
    const log: string[] = [];
    const { sink, calls } = recordingSink();
    const events = composeEvents(BATCH_EVENTS, sink, [
      notingLayer('above', log),
      { documentFinished: () => undefined, notice: (next, message, d) => (message === 'hush' ? undefined : next(message, d)) },
      notingLayer('below', log),
    ]);
    events.documentFinished(outcome('a.pdf'), doc);
    events.notice?.('hush');
    events.notice?.('said');
    expect(log).toEqual(['above:documentFinished', 'above:notice', 'above:notice', 'below:notice']);
    expect(calls).toEqual([{ name: 'notice', args: ['said', undefined] }]);
  });

  // Generic over the names: a callback added to BatchEvents (and so, by the compiler, to BATCH_EVENTS) is checked here too.
  it.each(BATCH_EVENTS.names)('passes %s on, as it was told, through layers that do not take it', (name) => {
    const log: string[] = [];
    const { sink, calls, receivers } = recordingSink();
    const events = composeEvents(BATCH_EVENTS, sink, [notingLayer('others', log, [name]), {}]);
    const args = [{ told: name }, 42, doc];
    (events[name] as (...args: unknown[]) => void)(...args);
    expect(calls).toEqual([{ name, args }]);
    expect(receivers).toEqual([sink]);
    expect(log).toEqual([]);
  });

  it.each(BATCH_EVENTS.names)('gives %s to a layer that takes it, its arguments after `next`, also when the last are left out', (name) => {
    const seen: unknown[][] = [];
    const { sink, calls } = recordingSink();
    const layer = { [name]: (next: (...args: unknown[]) => void, ...args: unknown[]) => (seen.push(args), next(...args)) } as EventLayer;
    const events = composeEvents(BATCH_EVENTS, sink, [layer]);
    (events[name] as (...args: unknown[]) => void)('first');
    expect(seen).toEqual([['first']]);
    expect(calls).toEqual([{ name, args: ['first'] }]);
  });

  it('calls a class’s callbacks on the class, and leaves its other methods off the events', () => {
    class Display implements BatchEvents {
      readonly shown: string[] = [];
      documentFinished(finished: DocumentOutcome): void {
        this.shown.push(finished.file);
      }
      notice(message: string): void {
        this.shown.push(message);
      }
      finish(): void {
        this.shown.push('finished');
      }
    }
    const display = new Display();
    const events = composeEvents(BATCH_EVENTS, display, []);
    events.documentFinished(outcome('a.pdf'));
    events.notice?.('hello');
    expect(display.shown).toEqual(['a.pdf', 'hello']);
    expect('finish' in events).toBe(false);
    expect(Object.keys(events).sort()).toEqual(['documentFinished', 'notice']);
  });

  it('leaves a callback absent that neither the sink nor a layer has, and gives a layer a `next` that does nothing where the sink has none', () => {
    const told: string[] = [];
    const events = composeEvents(BATCH_EVENTS, { documentFinished: () => undefined }, [
      {
        notice: (next, message) => {
          told.push(message);
          next(message);
        },
      },
    ]);
    expect(events.timeLeft).toBeUndefined();
    expect('timeLeft' in events).toBe(false);
    events.notice?.('to nobody below');
    expect(told).toEqual(['to nobody below']);
  });
});
