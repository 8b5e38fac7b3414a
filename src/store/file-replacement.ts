import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { reserveTempPath } from './atomic-write.js';

/** A file being written as a stream, in place of `path` once committed. */
export interface FileReplacement {
  /** Where the content goes: a fresh tmp file beside `path`. */
  readonly stream: WriteStream;
  /** Once the stream has finished: the tmp file takes `path`'s name. */
  commit(): Promise<void>;
  /** The write failed: the tmp file goes, `path` is left as it was. */
  discard(): Promise<void>;
}

/**
 * Stream a file into a fresh tmp name (O_CREAT|O_EXCL: never an existing
 * file, never through a link), then rename it over `path`. A link
 * at `path` is replaced, never written through: a link planted in an
 * export folder cannot send a table elsewhere (createWriteStream's 'w'
 * follows it). Readers see the old file or the whole new one.
 */
export function replaceFileByStream(path: string): FileReplacement {
  const temp = reserveTempPath(path);
  // 'wx' is O_CREAT|O_EXCL, which POSIX makes fail on any existing name, a link included: it is never followed (as O_NOFOLLOW would).
  const stream = createWriteStream(temp.path, { flags: 'wx' });
  return {
    stream,
    async commit() {
      try {
        await rename(temp.path, path);
      } finally {
        temp.release();
      }
    },
    async discard() {
      stream.destroy();
      await rm(temp.path, { force: true }).catch(() => undefined);
      temp.release();
    },
  };
}
