import type { BatchEvents, DocumentStatus } from '../batch/batch-types.js';
import type { ExtractionReport } from './batch-report.js';
import type { UsageTally } from './usage-record.js';

/** The folder's own state, for the status line. */
export interface FolderState {
  /** Files seen in the folder but not yet completely written (or not yet known to be). */
  settling: number;
  /** Files taken and not finished yet. */
  inProgress: number;
}

/** What watch adds to the display's events. */
export interface WatchEvents extends BatchEvents {
  /** The folder is watched: the files already in it have been found. */
  watching?(): void;
  /** The folder's counts changed (a file seen, settled, taken, finished or vanished): for a status line. */
  folderState?(state: FolderState): void;
}

/** What a watch did, when it stops. */
export interface WatchReport extends ExtractionReport {
  /** Documents per status (watch keeps no list of outcomes: it may run for days). */
  counts: Record<DocumentStatus, number>;
  /** Results that failed their checks. */
  checksFailed: number;
  /** What the documents cost and saved, for the usage record. */
  usage: UsageTally;
}
