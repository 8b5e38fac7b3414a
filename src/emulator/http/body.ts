import type { IncomingMessage } from 'node:http';

export interface ReceivedBody {
  /** The body, or null when it went past the cap (nothing past the cap is kept). */
  bytes: Buffer | null;
  tooLarge: boolean;
  /** The client went away, or sent so much past the cap that we hung up. Nobody to answer. */
  aborted: boolean;
}

/** Past the cap we still read (and drop) this many times the cap, so the client sees our 413 rather than a reset. */
const DISCARD_FACTOR = 4;

/**
 * Reads a request body, keeping at most `capBytes` in memory. Past the cap it
 * stops buffering and drains, so that the 413 reaches the client over a
 * healthy connection; a body far past the cap gets the socket closed.
 */
export function readBody(req: IncomingMessage, capBytes: number): Promise<ReceivedBody> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const settle = (result: ReceivedBody): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received <= capBytes) {
        chunks.push(chunk);
      } else if (received > capBytes * DISCARD_FACTOR) {
        chunks.length = 0;
        req.destroy();
        settle({ bytes: null, tooLarge: true, aborted: true });
      } else {
        chunks.length = 0;
      }
    });
    req.on('end', () => {
      const tooLarge = received > capBytes;
      settle({ bytes: tooLarge ? null : Buffer.concat(chunks), tooLarge, aborted: false });
    });
    req.on('error', () => settle({ bytes: null, tooLarge: false, aborted: true }));
    req.on('close', () => settle({ bytes: null, tooLarge: false, aborted: true }));
  });
}
