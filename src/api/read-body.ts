/**
 * Reads an answer's body under a byte cap. Not `response.text()`: that
 * buffers whatever arrives, and a huge or decompression-bomb body then
 * takes the process down (see response-caps.ts). Not a library either:
 * the loop is ten lines, and what matters is that it counts the bytes
 * fetch delivers, which are already inflated from gzip/deflate/br.
 */

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
 */
export async function readBodyCapped(body: ReadableStream<Uint8Array> | null, capBytes: number): Promise<CappedBody> {
  if (body === null) return { complete: true, text: '' };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
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
  }
  return { complete: true, text: decodeUtf8(chunks, total) };
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
