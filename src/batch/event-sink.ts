import type { BatchEvents } from './batch-types.js';

/** The callback `K` of the events `E`, as a function (a callback is optional on the events; here it is the one called). */
type Callback<E, K extends keyof E> = Extract<NonNullable<E[K]>, (...args: never[]) => void>;

/**
 * What one layer of a run's events does with the callbacks it cares about.
 * Each is given `next` (the same callback of the layers below it, down to
 * the sink; a no-op where none of them has it) and the callback's own
 * arguments: it passes the event on by calling `next`, or swallows it by
 * not calling it. `next` comes first, not last, because a callback's last
 * arguments are optional (`documentFinished(outcome)`): a `next` put after
 * them would arrive where `doc` is expected.
 */
export type EventLayer<E extends BatchEvents = BatchEvents> = {
  readonly [K in keyof E]?: (next: Callback<E, K>, ...args: Parameters<Callback<E, K>>) => void;
};

/** Every callback name of the events `E`, for composing them: made by `eventNames`, which keeps the list complete. */
export interface EventNames<E> {
  readonly names: readonly (keyof E & string)[];
}

/**
 * The callback names of `E`, from a table with every one of them: a
 * callback added to `E` and not to its table fails to compile, so no
 * composition can forget to pass it on.
 */
function eventNames<E>(table: { readonly [K in keyof E]-?: true }): EventNames<E> {
  return { names: Object.keys(table) as (keyof E & string)[] };
}

/** The callbacks of BatchEvents. */
export const BATCH_EVENTS = eventNames<BatchEvents>({
  uploadStarted: true,
  documentStarted: true,
  chunkDone: true,
  documentFinished: true,
  requestSent: true,
  creditsCharged: true,
  waiting: true,
  timeLeft: true,
  slotsHeld: true,
  notice: true,
  intakeStopped: true,
  strayJob: true,
  chunkFailed: true,
  requestUnreached: true,
  requestAnswered: true,
  reachability: true,
});

/**
 * The events a run is told through, read in order: each of `layers` (the
 * first is told first, and decides what the next one is told), then `sink`
 * (a display, or a program's own events). Only the callbacks are composed:
 * the sink's other methods (a display's `finish`) are not on the result, so
 * the sink's owner keeps the sink itself for them. A callback that neither
 * the sink nor any layer has stays absent, as it was on the sink.
 *
 * A sink is often a class whose callbacks are methods on its prototype: a
 * spread would drop them, so each is called on the sink itself.
 */
export function composeEvents<E extends BatchEvents>(events: EventNames<E>, sink: NoInfer<E>, layers: readonly EventLayer<NoInfer<E>>[]): E {
  const composed: Partial<Record<keyof E, (...args: unknown[]) => void>> = {};
  for (const name of events.names) {
    const own = sink[name] as ((...args: unknown[]) => void) | undefined;
    const handlers = layers.flatMap((layer) => {
      const handler = layer[name] as ((next: (...args: unknown[]) => void, ...args: unknown[]) => void) | undefined;
      return handler ? [handler] : [];
    });
    if (own === undefined && handlers.length === 0) continue;
    let call: (...args: unknown[]) => void = own ? (...args) => own.apply(sink, args) : () => undefined;
    for (const handler of handlers.reverse()) {
      const next = call;
      call = (...args) => handler(next, ...args);
    }
    composed[name] = call;
  }
  return composed as unknown as E;
}
