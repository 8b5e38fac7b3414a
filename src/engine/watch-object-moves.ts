/**
 * `--move-done s3://…` / `--move-failed s3://…` of `watch s3://…`: once a
 * document's result is durable (the runner reports it finished only then),
 * the version that was processed is copied (`CopySourceIfMatch` on its ETag,
 * never over an object already there) and the original deleted only while
 * it is still that version (DeleteObject `If-Match`, after a HEAD for the
 * stores that ignore the condition). A newer upload under the same key is
 * never deleted: it stays, and the next listing takes it.
 */
import { extname } from 'node:path/posix';
import type { DocumentOutcome } from '../batch/batch-types.js';
import type { ObjectFolder } from '../storage/object-folder.js';
import type { ObjectInbox, TakenObject } from '../storage/object-inbox.js';
import { ObjectStoreError } from '../storage/object-store-error.js';
import { objectUriOf } from '../util/object-uri.js';
import { moveKind } from './watch-moves.js';
import type { WatchEvents } from './watch-types.js';

/** Where finished objects go (folders in the same store). */
export interface ObjectMoveTargets {
  done?: ObjectFolder;
  failed?: ObjectFolder;
}

/** Names tried for a copy before the move gives up (`done/a.pdf`, `done/a (2).pdf`, ...). */
const MAX_NAMES = 100;

export class ObjectWatchMoves {
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly inbox: ObjectInbox,
    private readonly targets: ObjectMoveTargets,
    /** Where a move that failed or was refused is said. */
    private readonly events: Pick<WatchEvents, 'notice'>,
    /** Test-only: awaited between the copy and the delete, so a test can upload a new version at that exact point. @default none */
    private readonly beforeDelete?: (taken: TakenObject) => Promise<void>,
  ) {}

  /** The document from `source` (a spool file of the inbox) finished: moved when it is done for good, and recorded as taken. */
  finished(outcome: DocumentOutcome, source: string): void {
    const taken = this.inbox.takenAt(source);
    if (!taken) return;
    const kind = moveKind(outcome);
    const folder = kind === 'done' ? this.targets.done : kind === 'failed' ? this.targets.failed : undefined;
    this.chain = this.chain.then(async () => {
      let settled = kind !== undefined;
      if (folder !== undefined) {
        try {
          await this.move(taken, folder, outcome.file);
        } catch (error) {
          // Not recorded as taken: the next start takes it again (its result answers it, free) and moves it then.
          settled = false;
          const code = error instanceof ObjectStoreError ? error.code : ((error as NodeJS.ErrnoException).code ?? 'error');
          this.notice(
            `${outcome.file}: could not move it to ${objectUriOf(folder.bucket, folder.prefix)} (${code}: ${messageOf(error)}); it stays where it is`,
          );
        }
      }
      try {
        await this.inbox.finished(source, settled);
      } catch (error) {
        this.notice(`${outcome.file}: could not record it as taken (${messageOf(error)}); the next start looks at it again`);
      }
    });
  }

  /** Resolves once every queued move is done. */
  drain(): Promise<void> {
    return this.chain;
  }

  private notice(message: string): void {
    this.events.notice?.(message);
  }

  private async move(taken: TakenObject, folder: ObjectFolder, file: string): Promise<void> {
    const store = this.inbox.store;
    const copy = await this.copied(taken, folder, file);
    if (!copy) return;
    await this.beforeDelete?.(taken);
    // DeleteObject's If-Match is the guard (S3, moto); the HEAD first narrows the window on a store that ignores it.
    const now = await store.head(taken.bucket, taken.key);
    if (now === undefined) return; // deleted by someone else meanwhile: the copy is all there is
    if (now.etag === taken.etag) {
      try {
        return await store.remove(taken.bucket, taken.key, taken.etag);
      } catch (error) {
        if (!(error instanceof ObjectStoreError) || error.code !== 'object_changed') throw error;
      }
    }
    // Uploaded again since it was taken. A store that ignores CopySourceIfMatch copied the new bytes: the copy goes, the new upload stays.
    await store.remove(copy.bucket, copy.key, copy.etag).catch(() => undefined);
    this.notice(`${file}: uploaded again after it was taken; not moved, and the new upload is taken next`);
  }

  /** The processed version copied below `folder` at its path below the inbox (a free name), or none when it changed since it was taken. */
  private async copied(taken: TakenObject, folder: ObjectFolder, file: string): Promise<{ bucket: string; key: string; etag: string } | undefined> {
    const store = this.inbox.store;
    const below = taken.key.slice(this.inbox.folder.prefix.length);
    for (let n = 1; n <= MAX_NAMES; n++) {
      const key = `${folder.prefix}${numbered(below, n)}`;
      if (await store.head(folder.bucket, key)) continue;
      try {
        return { bucket: folder.bucket, key, etag: await store.copy(taken.bucket, taken.key, taken.etag, { bucket: folder.bucket, key }) };
      } catch (error) {
        if (!(error instanceof ObjectStoreError) || error.code !== 'object_changed') throw error;
        // 412: the source is another version now, or another writer took the name first (then the next name).
        if ((await store.head(taken.bucket, taken.key))?.etag !== taken.etag) {
          this.notice(`${file}: uploaded again (or deleted) after it was taken; not moved, and a new upload is taken next`);
          return undefined;
        }
      }
    }
    throw new ObjectStoreError('object_store_failed', `${objectUriOf(folder.bucket, folder.prefix + below)} and ${MAX_NAMES - 1} numbered names are taken`);
  }
}

/** `a/b.pdf`, then `a/b (2).pdf`, `a/b (3).pdf`, ... as a local move names a copy. */
function numbered(path: string, n: number): string {
  if (n === 1) return path;
  const extension = extname(path);
  return `${path.slice(0, path.length - extension.length)} (${n})${extension}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
