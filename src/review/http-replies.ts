import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';

/**
 * Headers on every answer: nothing cached (results change as they are
 * corrected), no referrer (the token is in the URL), and a page that can
 * load nothing but what this server serves.
 */
const COMMON_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; img-src 'self' blob: data:; style-src 'self'; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

function sendText(response: ServerResponse, status: number, type: string, body: string | Buffer): void {
  response.writeHead(status, { ...COMMON_HEADERS, 'content-type': type, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  sendText(response, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

/** A refusal says little: no hint of what exists. */
export function refuse(response: ServerResponse, status: 403 | 404 | 405 | 413 | 415 | 400): void {
  const words: Record<number, string> = {
    400: 'bad request',
    403: 'forbidden',
    404: 'not found',
    405: 'method not allowed',
    413: 'too large',
    415: 'unsupported media type',
  };
  sendText(response, status, 'text/plain; charset=utf-8', `${words[status] ?? 'refused'}\n`);
}

export async function sendFile(response: ServerResponse, path: string, type: string): Promise<void> {
  const stream = createReadStream(path);
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  response.writeHead(200, { ...COMMON_HEADERS, 'content-type': type });
  await pipeline(stream, response);
}

/** A JSON body of at most `limit` bytes; undefined when it is larger, or not JSON. */
export async function readJsonBody(request: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

const SOURCE_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
};

/** A document's content type by its name; never served as something a browser would run (no HTML, no SVG). */
export function sourceTypeOf(path: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? '';
  return SOURCE_TYPES[extension] ?? 'application/octet-stream';
}
