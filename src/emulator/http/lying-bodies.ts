import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { AnswerHeaders } from './lying-headers.js';
import { constants, createGzip } from 'node:zlib';

/** Both bodies are valid JSON if read to the end: a string field that never seems to stop. */
const PAD_PREFIX = Buffer.from('{"success":true,"data":{"pad":"');
const PAD_SUFFIX = Buffer.from('"}}');
const PIECE_BYTES = 64 * 1024;

/** Resolves on 'drain', or on 'close' when the client has gone. */
export function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * oversized_body: `totalBytes` of JSON streamed from one small buffer, never
 * held in memory, honouring backpressure, and abandoned as soon as the client
 * disconnects. Resolves with the body bytes actually handed to the socket.
 */
export async function streamOversizedBody(res: ServerResponse, status: number, headers: AnswerHeaders, totalBytes: number): Promise<number> {
  const size = Math.max(totalBytes, PAD_PREFIX.length + PAD_SUFFIX.length);
  let closed = false;
  res.once('close', () => {
    closed = true;
  });
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': String(size) });
  const fill = Buffer.alloc(Math.min(PIECE_BYTES, size), 'x');
  let sent = PAD_PREFIX.length;
  if (!res.write(PAD_PREFIX)) await drainedOrClosed(res);
  let padLeft = size - PAD_PREFIX.length - PAD_SUFFIX.length;
  while (padLeft > 0 && !closed) {
    const piece = padLeft >= fill.length ? fill : fill.subarray(0, padLeft);
    padLeft -= piece.length;
    sent += piece.length;
    if (!res.write(piece)) await drainedOrClosed(res);
  }
  if (closed) return sent;
  res.end(PAD_SUFFIX);
  return sent + PAD_SUFFIX.length;
}

/** Bigger pieces for the one-off compression: fewer zlib calls. */
const BOMB_PIECE_BYTES = 1024 * 1024;

/**
 * The gzip_bomb body: about 1 KB of gzip per MB of blanks inside a JSON
 * string (deflate's best ratio), inflating to exactly `inflatedBytes`. Built
 * by streaming zlib over one reused buffer, so only the compressed bytes are
 * ever held. Z_RLE finds the same maximal matches as level 9's search here,
 * about 7x faster (1.5 GiB in ~1.5 s instead of ~10 s, measured).
 */
export async function buildGzipBomb(inflatedBytes: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9, strategy: constants.Z_RLE });
  const compressed: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => compressed.push(chunk));
  const ended = once(gzip, 'end');
  gzip.write(PAD_PREFIX);
  const fill = Buffer.alloc(BOMB_PIECE_BYTES, ' ');
  let padLeft = Math.max(0, inflatedBytes - PAD_PREFIX.length - PAD_SUFFIX.length);
  while (padLeft > 0) {
    const piece = padLeft >= fill.length ? fill : fill.subarray(0, padLeft);
    padLeft -= piece.length;
    if (!gzip.write(piece)) await once(gzip, 'drain');
  }
  gzip.end(PAD_SUFFIX);
  await ended;
  return Buffer.concat(compressed);
}

export interface TrickleTiming {
  /** Between trickled bytes. */
  intervalMs: number;
  /** The socket is closed this long after the headers, whatever happened meanwhile. */
  closeAfterMs: number;
}

/** Bytes sent one at a time after the first half, before the trickle stops for good. */
const TRICKLED_BYTES = 8;

/**
 * trickle_stop: headers (with the full Content-Length) and the first half of
 * the body at once, then a few single bytes, then nothing: the response is
 * never ended, so only a client-side timeout gets the caller out. Bounded:
 * the socket is closed after `closeAfterMs`, or earlier by the client or by
 * the emulator closing. Resolves with the body bytes sent when it closes.
 */
export function trickleThenStall(res: ServerResponse, status: number, headers: AnswerHeaders, body: Buffer, timing: TrickleTiming): Promise<number> {
  res.writeHead(status, { ...headers, 'content-length': String(body.length) });
  let cursor = Math.floor(body.length / 2);
  res.write(body.subarray(0, cursor));
  // At least the last byte is always withheld, so the body can never complete.
  const stallAt = Math.min(body.length - 1, cursor + TRICKLED_BYTES);
  const trickle = setInterval(() => {
    if (cursor >= stallAt) {
      clearInterval(trickle);
      return;
    }
    res.write(body.subarray(cursor, cursor + 1));
    cursor += 1;
  }, timing.intervalMs).unref();
  const hangUp = setTimeout(() => res.destroy(), timing.closeAfterMs).unref();
  return new Promise((resolve) => {
    res.once('close', () => {
      clearInterval(trickle);
      clearTimeout(hangUp);
      resolve(cursor);
    });
  });
}
