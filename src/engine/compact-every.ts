/** Finished files between two compactions of the journal. */
const COMPACT_EVERY = 1_000;

/**
 * Compacts the journal every `every` finished files, one compaction at a
 * time: a long run's finished work leaves memory (and the file) as it goes,
 * not only when the session closes (`watch` may journal for days; an
 * `extract` of 100,000 files held every finished record to its end). A
 * failed compaction is told and tried again at the next turn.
 */
export class CompactEvery {
  private finishedSince = 0;
  private compacting: Promise<void> = Promise.resolve();

  constructor(
    private readonly compact: () => Promise<void>,
    private readonly notice: (message: string) => void,
    private readonly every = COMPACT_EVERY,
  ) {}

  /** One more file finished. */
  finished(): void {
    this.finishedSince += 1;
    if (this.finishedSince < this.every) return;
    this.finishedSince = 0;
    this.compacting = this.compacting
      .then(() => this.compact())
      .catch((error: unknown) =>
        this.notice(`could not compact the journal (${error instanceof Error ? error.message : String(error)}); it is compacted again later`),
      );
  }

  /** Once the compactions started so far have ended. */
  settled(): Promise<void> {
    return this.compacting;
  }
}
