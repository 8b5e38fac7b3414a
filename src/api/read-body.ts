/**
 * Reads an answer's body under a byte cap. Not `response.text()`: that
 * buffers whatever arrives, and a huge or decompression-bomb body then
 * takes the process down (see response-caps.ts). Not a library either:
 * the loop is ten lines, and what matters is that it counts the bytes
 * fetch delivers, which are already inflated from gzip/deflate/br.
 */

import type { LargeBodyGate } from './large-body-gate.js';

export type CappedBody =
  | { complete: true; text: string }
  /** The cap was passed; reading stopped and the stream was cancelled. */
  | { complete: false; bytesRead: number };

/**
 * Collects chunks until the stream ends or the next chunk would pass
 * `capBytes`. Over the cap it cancels the reader, so undici drops the
 * connection instead of draining the rest, and returns without decoding.
 * The text is decoded once at the end (UTF-8, invalid bytes replaced, as
 * `response.text()` does), so no string larger than the cap is ever built.
 * A read failure (reset, deadline, caller abort) rejects as the read did.
 * With `large`, an answer that grows past the gate's threshold waits there
 * until no other answer is past it, so lying answers are big one at a time.
 */
export async function readBodyCapped(body: ReadableStream<Uint8Array> | null, capBytes: number, large?: LargeBodyReading): Promise<CappedBody> {
  if (body === null) return { complete: true, text: '' };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let release: (() => void) | undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (total + value.byteLength > capBytes) {
        total += value.byteLength;
        // Not awaited: the answer is already decided, and a cancel that
        // waits on a stuck socket must not hold the caller.
        reader.cancel().catch(() => undefined);
        return { complete: false, bytesRead: total };
      }
      chunks.push(value);
      total += value.byteLength;
      if (large && !release && total > large.gate.thresholdBytes) {
        release = await large.gate.enter(large.signal).catch((error: unknown) => {
          reader.cancel().catch(() => undefined);
          throw error;
        });
      }
    }
    return { complete: true, text: decodeUtf8(chunks, total) };
  } finally {
    release?.();
  }
}

/** Where an answer waits before it may grow past the size of any real one (see large-body-gate.ts). */
export interface LargeBodyReading {
  gate: LargeBodyGate;
  /** The request's deadline and the caller's abort: a wait ends with them. */
  signal?: AbortSignal;
}

function decodeUtf8(chunks: readonly Uint8Array[], total: number): string {
  const joined = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder('utf-8', { fatal: false }).decode(joined);
}
