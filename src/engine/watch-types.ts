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
  /** A finished file's source was not moved, since someone else could redirect the move; it stays where it is. @default said as a `notice` */
  notMoved?(refusal: MoveRefusal): void;
}

/** Why a source was not moved to `--move-done` / `--move-failed`: a folder on the way that someone other than the user (or root) could swap for a link. */
export interface MoveRefusal {
  /** The document, as the user would recognise it. */
  file: string;
  /** The folder it was to be moved to. */
  to: string;
  /** Always `move_unsafe`. */
  code: 'move_unsafe';
  /** The folder someone else could swap (or that lets them swap what is in it). */
  folder: string;
  /** Why, in words: whose it is, or the mode that lets others write. */
  reason: string;
  /** The whole of it, in one line naming the file. */
  message: string;
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
