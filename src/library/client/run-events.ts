import type { BatchEvents, DocumentOutcome } from '../../batch/batch-types.js';

/**
 * A run's events, made once there is something to show (a display may draw
 * on the terminal only then): outcomes that finish before, such as inputs
 * refused while they are found, are kept and told first when it is made.
 */
export class RunEvents<E extends BatchEvents> {
  private made: Promise<E> | undefined;
  private shown: E | undefined;
  private early: DocumentOutcome[] = [];

  constructor(private readonly make: () => E | Promise<E>) {}

  /** An outcome told now if the events are made, else when they are. */
  finished(outcome: DocumentOutcome): void {
    if (this.shown) this.shown.documentFinished(outcome);
    else this.early.push(outcome);
  }

  /** The events, made the first time (the outcomes kept till then told first). */
  events(): Promise<E> {
    return (this.made ??= (async () => {
      const events = await this.make();
      for (const outcome of this.early) events.documentFinished(outcome);
      this.early = [];
      this.shown = events;
      return events;
    })());
  }
}
