/**
 * The object-storage parts of a `watch`: an `s3://` inbox (listed, not
 * watched), `s3://` move targets, and an `s3://` output, checked against each
 * other as local folders are (a target may sit inside the inbox, where it is
 * never taken from, but not be it or hold it), and opened. The SDK is loaded
 * only when one of them names `s3://`.
 */
import type { ObjectMoveTargets } from '../../engine/watch-object-moves.js';
import type { ObjectInbox } from '../../storage/object-inbox.js';
import type { ObjectOutput } from '../../storage/object-output.js';
import { isObjectUri, objectUriOf } from '../../util/object-uri.js';
import { objectFolderOf, objectFolderWithin, type ObjectFolder } from '../../storage/object-folder.js';
import type { ClientSettings } from './client-options.js';
import { InvalidOptionError } from './invalid-option-error.js';

/** How often an `s3://` inbox is listed by default: each listing is a paid request per 1,000 keys. */
export const DEFAULT_OBJECT_POLL_MS = 60_000;

/** What a watch named in object storage, opened: close it once the watch is over. */
export interface ObjectWatch {
  /** The inbox, when the watched folder is `s3://…`. */
  inbox?: ObjectInbox;
  moves: ObjectMoveTargets;
  /** The output, when `out` is `s3://…`: results go to its mirror in the state folder, each put at its key first. */
  output?: ObjectOutput;
  close(): void;
}

/** The parts of a watch named `s3://`, checked and opened; none when nothing is. */
export async function objectWatchOf(
  client: ClientSettings,
  folder: string,
  named: { out?: string; moveDone?: string; moveFailed?: string },
): Promise<ObjectWatch | undefined> {
  const targets = { moveDone: named.moveDone, moveFailed: named.moveFailed };
  const watched = isObjectUri(folder);
  for (const [option, target] of Object.entries(targets)) {
    if (target !== undefined && isObjectUri(target) !== watched)
      throw new InvalidOptionError(
        option,
        watched
          ? `${target}: a watch of ${folder} moves objects within object storage; give an s3:// folder.`
          : `${target}: a watch of a local folder moves files to a local folder; s3:// targets are for a watch of s3://.`,
      );
  }
  const out = named.out !== undefined && isObjectUri(named.out) ? named.out : undefined;
  if (!watched && out === undefined) return undefined;
  const inboxFolder = watched ? parsed('folder', folder) : undefined;
  const moves: ObjectMoveTargets = {
    ...(named.moveDone !== undefined && watched ? { done: parsed('moveDone', named.moveDone) } : {}),
    ...(named.moveFailed !== undefined && watched ? { failed: parsed('moveFailed', named.moveFailed) } : {}),
  };
  const outFolder = out !== undefined ? parsed('out', out) : undefined;
  const inside: ObjectFolder[] = [];
  for (const [option, target] of [
    ['out', outFolder],
    ['moveDone', moves.done],
    ['moveFailed', moves.failed],
  ] as const) {
    if (!inboxFolder || !target) continue;
    if (objectFolderWithin(inboxFolder, target)) {
      const how = inboxFolder.prefix === target.prefix ? 'is the watched folder' : `holds the watched folder ${folder}`;
      throw new InvalidOptionError(
        option,
        `${objectUriOf(target.bucket, target.prefix)} ${how}: results and moved objects would be taken as new arrivals. Choose a folder outside it, or a folder inside it (which is never taken from).`,
      );
    }
    if (objectFolderWithin(target, inboxFolder)) inside.push(target);
  }
  // The client's object storage (DocExtractOptions.objectStorage): its endpoint, page size, credentials' environment and spool folder.
  const { spoolDir, ...store } = client.objects;
  const [inboxModule, outputModule] = await Promise.all([
    watched ? import('../../storage/object-inbox.js') : undefined,
    out !== undefined ? import('../../storage/object-output.js') : undefined,
  ]);
  const inbox = inboxModule ? await inboxModule.ObjectInbox.open(folder, { ...store, spoolDir, exclude: inside }) : undefined;
  const output = outputModule && out !== undefined ? await outputModule.openObjectOutput(out, { ...store, spoolDir }) : undefined;
  return {
    ...(inbox ? { inbox } : {}),
    moves,
    ...(output ? { output } : {}),
    close: () => {
      inbox?.close();
      output?.close();
    },
  };
}

function parsed(option: string, uri: string): ObjectFolder {
  try {
    return objectFolderOf(uri);
  } catch (error) {
    throw new InvalidOptionError(option, error instanceof Error ? error.message : String(error));
  }
}
