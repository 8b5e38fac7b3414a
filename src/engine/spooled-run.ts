import type { DocumentOutcome, PlannedDocument } from '../batch/batch-types.js';
import type { DocumentTask } from '../batch/document-task.js';
import { failedOutcome } from '../batch/outcomes.js';
import type { SpooledSources } from './plan-documents.js';

/**
 * A run's hold on the spool files of its `s3://` documents: each is kept from
 * its planning until its documents settle (written, reused, refused, or
 * failed; a job left open keeps it), so the disk holds what is in flight. A
 * document planned from its record (a rerun) is downloaded again only if it
 * is to be sent. Without `s3://` inputs every step does nothing.
 */
export class SpooledRun {
  /** Removals under way: the run ends once they are done. */
  private readonly removals = new Set<Promise<void>>();

  constructor(private readonly spool?: SpooledSources) {}

  /** A slice was planned: its documents are held, and the files its checks refused let go of. */
  planned(documents: readonly PlannedDocument[], rejected: readonly DocumentOutcome[]): void {
    if (!this.spool) return;
    for (const doc of documents) this.spool.hold(doc.path);
    for (const outcome of rejected) if (outcome.source !== undefined) this.letGo(outcome.source, outcome.status === 'interrupted');
  }

  /**
   * The slice's documents that will not be sent (reused, refused: not in `tasks`) are settled; the tasks' own
   * sources are made present (a rerun planned them without their bytes). Returns the tasks ready, and for a
   * task to be uploaded whose object cannot be read again (changed or deleted since listed), its documents' outcomes.
   */
  async ready(
    documents: readonly PlannedDocument[],
    tasks: readonly DocumentTask[],
  ): Promise<{ tasks: DocumentTask[]; unread: [DocumentOutcome, PlannedDocument][] }> {
    if (!this.spool) return { tasks: [...tasks], unread: [] };
    const sent = new Set(tasks.flatMap((task) => [task.doc, ...task.copies]));
    for (const doc of documents) if (!sent.has(doc)) this.letGo(doc.path, false);
    const spool = this.spool;
    const read = await Promise.all(tasks.map((task) => spool.ensure(task.doc.path)));
    const ready: DocumentTask[] = [];
    const unread: [DocumentOutcome, PlannedDocument][] = [];
    tasks.forEach((task, index) => {
      const why = read[index];
      // A job already open goes on without them (its chunks were sent): only an upload cannot.
      if (why === undefined || task.phase !== 'queued') return void ready.push(task);
      const outcomes = [task.doc, ...task.copies].map((doc): [DocumentOutcome, PlannedDocument] => [
        failedOutcome(doc.displayPath, { code: why.code, message: why.message }, { source: doc.path, pages: doc.pages ?? null }),
        doc,
      ]);
      // Done: an identical file planned later is not made to wait for it.
      task.finish(outcomes[0]![0]);
      for (const [outcome, doc] of outcomes) {
        unread.push([outcome, doc]);
        this.letGo(doc.path, false);
      }
    });
    return { tasks: ready, unread };
  }

  /** A document the run was given settled (`interrupted`: its job left open keeps its bytes for the rerun). */
  finished(outcome: DocumentOutcome, doc: PlannedDocument): void {
    this.letGo(doc.path, outcome.status === 'interrupted');
  }

  /** Once every settled file is removed. */
  async settled(): Promise<void> {
    while (this.removals.size > 0) await Promise.all(this.removals);
  }

  private letGo(path: string, keep: boolean): void {
    if (!this.spool) return;
    const removal: Promise<void> = this.spool
      .settled(path, keep)
      .catch(() => undefined)
      .finally(() => this.removals.delete(removal));
    this.removals.add(removal);
  }
}
