/**
 * A small stand-in in front of moto for what moto cannot do: it forwards
 * every request, except those a test chose to hold (never answered: the
 * exact point a test kills a run at), to fail (a 503 SlowDown) or to cut (the
 * connection reset in the middle of the body). Node's http, nothing else.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Match = (req: IncomingMessage) => boolean;

export interface S3StandIn {
  url: string;
  /** Requests held so far (method and path), in order. */
  held: string[];
  /** Holds every request that `match`es: it gets no answer until the stand-in closes. */
  hold(match: Match): void;
  /** Holds nothing more (the requests held so far stay unanswered). */
  release(): void;
  /** Forwards every request that `match`es only once `opened` resolves (the exact point a test waits for). */
  gate(match: Match, opened: Promise<unknown>): void;
  /** Answers the next `times` matching requests 503 SlowDown. */
  slowDown(match: Match, times: number): void;
  /**
   * Answers the next `times` matching requests with moto's status and headers (the whole body's
   * Content-Length) and the first half of its body, then resets the connection.
   */
  cutMidBody(match: Match, times: number): void;
  /** Requests cut so far (method and path), in order. */
  cut: string[];
  close(): Promise<void>;
}

export async function startS3StandIn(upstream: string): Promise<S3StandIn> {
  const held: string[] = [];
  const holds: Match[] = [];
  const faults: { match: Match; left: number }[] = [];
  const cuts: { match: Match; left: number }[] = [];
  const cut: string[] = [];
  const gates: { match: Match; opened: Promise<unknown> }[] = [];
  const open = new Set<ServerResponse>();
  const takes = (entries: { match: Match; left: number }[], req: IncomingMessage): boolean => {
    const found = entries.find((entry) => entry.left > 0 && entry.match(req));
    if (found) found.left -= 1;
    return found !== undefined;
  };
  const server = createServer((req, res) => {
    if (holds.some((match) => match(req))) {
      held.push(`${req.method} ${req.url}`);
      open.add(res);
      req.resume();
      return;
    }
    if (takes(faults, req)) {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>');
      return;
    }
    if (takes(cuts, req)) {
      cut.push(`${req.method} ${req.url}`);
      return forward(req, res, cutHalfway);
    }
    const gate = gates.find((entry) => entry.match(req));
    if (gate) void gate.opened.then(() => forward(req, res));
    else forward(req, res);
  });
  const forward = (req: IncomingMessage, res: ServerResponse, answered = passOn): void => {
    const target = new URL(req.url ?? '/', upstream);
    const forwarded = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => answered(answer, res));
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    held,
    hold: (match) => void holds.push(match),
    release: () => void holds.splice(0),
    gate: (match, opened) => void gates.push({ match, opened }),
    slowDown: (match, times) => void faults.push({ match, left: times }),
    cutMidBody: (match, times) => void cuts.push({ match, left: times }),
    cut,
    close: async () => {
      for (const res of open) res.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function passOn(answer: IncomingMessage, res: ServerResponse): void {
  res.writeHead(answer.statusCode ?? 502, answer.headers);
  answer.pipe(res);
}

/** The whole answer read from moto, its headers and half its bytes sent, then the socket destroyed: a reset, not an end. */
function cutHalfway(answer: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  answer.on('data', (chunk: Buffer) => void chunks.push(chunk));
  answer.on('end', () => {
    const body = Buffer.concat(chunks);
    const { 'transfer-encoding': _chunked, ...headers } = answer.headers;
    res.writeHead(answer.statusCode ?? 502, { ...headers, 'content-length': String(body.length) });
    // Written, then flushed to the socket, before it is destroyed: the client has the headers and half the bytes.
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
  });
}
