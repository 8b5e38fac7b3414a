import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

/** What the proxy was asked: a tunnel (`CONNECT host:port`) or a forwarded request (`GET http://…`). */
export interface ProxyRequest {
  line: string;
  /** Whether it carried the credentials the proxy asks for (true when it asks none). */
  authorized: boolean;
}

export interface RunningProxy {
  url: string;
  /** Every request the proxy was asked, in order: the host's own record of the path taken. */
  seen: ProxyRequest[];
  close(): Promise<void>;
}

/**
 * A small forward proxy on loopback, as a company's is: CONNECT tunnels (what undici opens for https
 * targets, and for http ones by default) and forwarded plain-http requests. Given `credentials`, it
 * answers 407 to anything without `Proxy-Authorization: Basic <user:password>`.
 */
export async function startConnectProxy(options: { credentials?: { user: string; password: string } } = {}): Promise<RunningProxy> {
  const seen: ProxyRequest[] = [];
  const expected = options.credentials ? `Basic ${Buffer.from(`${options.credentials.user}:${options.credentials.password}`).toString('base64')}` : undefined;
  const authorized = (req: http.IncomingMessage): boolean => expected === undefined || req.headers['proxy-authorization'] === expected;
  const sockets = new Set<net.Socket>();

  const server = http.createServer((req, res) => {
    const ok = authorized(req);
    seen.push({ line: `${req.method} ${req.url}`, authorized: ok });
    if (!ok) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="corp"' }).end();
      return;
    }
    const target = new URL(req.url ?? '');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = http.request(
      { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    const ok = authorized(req);
    seen.push({ line: `CONNECT ${req.url}`, authorized: ok });
    if (!ok) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const [host = '', port = ''] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
