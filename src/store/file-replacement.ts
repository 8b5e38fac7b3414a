import { createWriteStream, type WriteStream } from 'node:fs';
import { chmod, rename, rm } from 'node:fs/promises';
import { reserveTempPath } from './atomic-write.js';

/** A file being written as a stream, in place of `path` once committed. */
export interface FileReplacement {
  /** Where the content goes: a fresh tmp file beside `path`. */
  readonly stream: WriteStream;
  /**
   * Once the stream has finished: the tmp file takes `path`'s name, with the
   * mode it was made with (the umask's) less what `mode` leaves out.
   * @default 0o666: the umask's mode
   */
  commit(mode?: number): Promise<void>;
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
  // Made the owner's alone: until it is complete its final mode is not known, and a reader keeps what it opened.
  const stream = createWriteStream(temp.path, { flags: 'wx', mode: 0o600 });
  // What the umask lets a new file have: the most the file may get (process.umask() reads it; DEP0139 is
  // about workers, where it cannot be set, and this only reads it).
  const made = 0o666 & ~process.umask();
  return {
    stream,
    async commit(mode = 0o666) {
      try {
        await chmod(temp.path, made & mode);
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
