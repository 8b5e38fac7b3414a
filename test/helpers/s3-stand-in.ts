/**
 * A small stand-in in front of moto for what moto cannot do: it forwards
 * every request, except those a test chose to hold (never answered: the
 * exact point a test kills a run at) or to fail (a 503 SlowDown). Node's
 * http, nothing else. (A connection reset in the middle of a body is not
 * here yet: cut this way, the SDK's download still completed; see the report
 * of issue 54.)
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
  close(): Promise<void>;
}

export async function startS3StandIn(upstream: string): Promise<S3StandIn> {
  const held: string[] = [];
  const holds: Match[] = [];
  const faults: { match: Match; left: number }[] = [];
  const gates: { match: Match; opened: Promise<unknown> }[] = [];
  const open = new Set<ServerResponse>();
  const slowedDown = (req: IncomingMessage): boolean => {
    const found = faults.find((entry) => entry.left > 0 && entry.match(req));
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
    if (slowedDown(req)) {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/xml' });
      res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>');
      return;
    }
    const gate = gates.find((entry) => entry.match(req));
    if (gate) void gate.opened.then(() => forward(req, res));
    else forward(req, res);
  });
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const target = new URL(req.url ?? '/', upstream);
    const forwarded = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
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
    close: async () => {
      for (const res of open) res.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
