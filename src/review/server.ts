import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readJsonBody, refuse, sendFile, sendJson, sourceTypeOf } from './http-replies.js';
import type { PdfjsAssets } from './package-assets.js';
import { pageFile } from './page-files.js';
import type { ReviewChecks } from './review-checks.js';
import { failedSourceFile } from './failed-documents.js';
import { findFailedDocument, listDocuments, saveDocumentReview, sourceFileOf, viewDocument } from './review-model.js';
import type { ResultsFolder } from './results-folder.js';
import { ObjectStoreError } from '../storage/object-store-error.js';

export interface ReviewServerOptions {
  folder: ResultsFolder;
  /** The state folder, whose last-run reports name the files that got no result in `folder`. */
  stateDir: string;
  checks: ReviewChecks;
  pdfjs: PdfjsAssets;
  now(): Date;
  /** @default 0: a free port */
  port?: number;
  /** The secret part of every URL. @default 32 random hex digits */
  token?: string;
}

/** The review page's server, listening on loopback until closed. */
export interface ReviewServer {
  /** The page, token included: http://127.0.0.1:<port>/<token>/ */
  url: string;
  /** The port it listens on. */
  port: number;
  /** Stops serving. */
  close(): Promise<void>;
}

/** Corrections sent by the page: well under this. */
const BODY_LIMIT = 1024 * 1024;

/**
 * The review page's server: on loopback only, every path behind a token
 * (as Jupyter's), answering only for the page's own files, pdf.js from the
 * package, the results below the folder and the sources those results name
 * (or, for a file that got no result, the last-run report of its run).
 * Anything else is refused, whatever it asks for.
 */
export async function startReviewServer(options: ReviewServerOptions): Promise<ReviewServer> {
  const token = options.token ?? randomBytes(16).toString('hex');
  let port = 0;
  const server = createServer((request, response) => {
    handle(request, response, { ...options, token, port }).catch(() => {
      if (!response.headersSent) sendJson(response, 500, { error: 'internal error' });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: options.port ?? 0 }, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/${token}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

type Context = ReviewServerOptions & { token: string; port: number };

async function handle(request: IncomingMessage, response: ServerResponse, ctx: Context): Promise<void> {
  // Another name for this address (DNS rebinding) is not this page.
  const host = request.headers.host ?? '';
  if (host !== `127.0.0.1:${ctx.port}` && host !== `localhost:${ctx.port}`) return refuse(response, 403);
  const url = new URL(request.url ?? '/', `http://${host}`);
  const [, first = '', ...rest] = url.pathname.split('/');
  if (!sameToken(first, ctx.token)) return refuse(response, 403);
  const path = rest.map(decodeSegment);
  if (path.some((segment) => segment === undefined)) return refuse(response, 400);
  const route = (path as string[]).join('/');
  const id = url.searchParams.get('id') ?? '';
  if (request.method === 'POST' && route === 'api/document') return saveReview(request, response, ctx, id);
  if (request.method !== 'GET' && request.method !== 'HEAD') return refuse(response, 405);

  if (path.length === 0) return redirect(response, `/${ctx.token}/`); // relative links need the slash
  const name = route === '' ? 'index.html' : route;
  const page = pageFile(name);
  if (page) return sendFile(response, page.path, page.type);
  if (route === 'api/documents') return sendJson(response, 200, { folder: ctx.folder.shownAs, documents: await listDocuments(ctx.folder, ctx.stateDir) });
  if (route === 'api/document') {
    const view = await viewDocument(ctx.folder, ctx.stateDir, id, ctx.checks);
    return view ? sendJson(response, 200, view) : refuse(response, 404);
  }
  if (route === 'source') return sendSource(response, ctx, id);
  if (path[0] === 'pdfjs') {
    const asset = ctx.pdfjs.find(path.slice(1).join('/'));
    return asset ? sendFile(response, asset.path, asset.type) : refuse(response, 404);
  }
  if (path[0] === 'results') {
    // A result as it is on disk, for a person who wants to see the JSON itself.
    const found = await ctx.folder.resultAt(path.slice(1).join('/'));
    return found ? sendFile(response, found.path, 'application/json; charset=utf-8') : refuse(response, 404);
  }
  return refuse(response, 404);
}

/**
 * A source is asked for by its result (or its entry in a last-run report),
 * never by its own path: only the files results and reports name can be served.
 */
async function sendSource(response: ServerResponse, ctx: Context, id: string): Promise<void> {
  const failed = await findFailedDocument(ctx.folder, ctx.stateDir, id);
  const found = failed ? undefined : await ctx.folder.resultAt(id);
  const source = failed ? await failedSourceFile(failed) : found && (await sourceFileOf(found.result, ctx.folder.cwd));
  if (!source) return refuse(response, 404);
  await sendFile(response, source, sourceTypeOf(source));
}

async function saveReview(request: IncomingMessage, response: ServerResponse, ctx: Context, id: string): Promise<void> {
  // JSON only: a form posted from another site cannot send it without the browser asking first.
  if (!(request.headers['content-type'] ?? '').startsWith('application/json')) return refuse(response, 415);
  const body = (await readJsonBody(request, BODY_LIMIT)) as { values?: unknown; approved?: unknown } | undefined;
  if (!body || typeof body.values !== 'object' || body.values === null || Array.isArray(body.values) || typeof body.approved !== 'boolean')
    return refuse(response, 400);
  const texts = Object.fromEntries(Object.entries(body.values).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  let view;
  try {
    view = await saveDocumentReview(ctx.folder, id, texts, body.approved, ctx.checks, ctx.now());
  } catch (error) {
    // Results in a bucket: changed there since they were read (409, the page reloads them), or the store refused the put.
    if (!(error instanceof ObjectStoreError)) throw error;
    const reload = error.code === 'object_changed' ? ' Reload the document: it now shows what the bucket holds.' : '';
    return sendJson(response, error.code === 'object_changed' ? 409 : 502, { error: error.code, message: `${error.message}${reload}` });
  }
  if (!view) return refuse(response, 404);
  // A value not of its field's type: nothing saved, and the page shows each message at its field.
  return 'refused' in view ? sendJson(response, 422, { error: 'refused_values', refused: view.refused }) : sendJson(response, 200, view);
}

function redirect(response: ServerResponse, location: string): void {
  response.writeHead(302, { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
  response.end();
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function decodeSegment(segment: string): string | undefined {
  try {
    const decoded = decodeURIComponent(segment);
    return decoded.includes('/') || decoded.includes('\\') ? undefined : decoded;
  } catch {
    return undefined;
  }
}
