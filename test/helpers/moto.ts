/**
 * A real S3-compatible server for the tests: moto 5's `moto_server`, on a
 * free port, started by the test file that needs it and killed after it. It
 * is on the development and CI machines; a test that needs it FAILS, saying
 * so, when it is missing: it is never skipped. Its request log (werkzeug's
 * lines on stderr) is the test's count of what a run asked the store.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { waitFor } from './wait-for.js';

/** Credentials moto accepts (any): set in the child's environment, never the machine's. */
export const MOTO_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1', AWS_EC2_METADATA_DISABLED: 'true' };

export interface RunningMoto {
  /** `http://127.0.0.1:PORT`: give it as --s3-endpoint or AWS_ENDPOINT_URL_S3. */
  url: string;
  /** Each request as logged: `GET /bucket/key?…` with its status. */
  requests: { method: string; target: string; status: number }[];
  /** The environment a CLI run needs to reach it. */
  env: Record<string, string>;
  /** Clears every bucket (POST /moto-api/reset) and the request log. */
  reset(): Promise<void>;
  /**
   * Empties the request log once every request answered so far is in it. moto writes a request's line
   * after its answer, so a line could land after a bare `requests.length = 0` and pass for a later
   * request: a marker request is sent, and its own line is the positive signal.
   */
  clearLog(): Promise<void>;
  close(): Promise<void>;
}

const NOT_INSTALLED = `moto_server is not installed (not on PATH): the S3 tests need it (pip install 'moto[server]'), they are never skipped`;

const REQUEST_LINE = /"([A-Z]+) (\S+) HTTP\/[\d.]+" (\d{3})/;

/**
 * Run by sh in front of moto when moto outlives the test file (`tiedToThisProcess`): vitest ends a
 * worker with SIGTERM, which runs no exit handler, so moto is killed when the pipe on sh's stdin
 * (fd 3 to the watcher) reaches its end, however this process ended (kill -9 included); sh exits
 * with moto (127: no moto_server).
 */
const TIED = ['exec 3<&0', '"$0" "$@" </dev/null 3<&- &', 'server=$!', '(cat <&3; kill "$server") >/dev/null 2>&1 &', 'exec 3<&-', 'wait "$server"'].join('\n');

export interface MotoOptions {
  /** Moto lives as long as this process (it may be left running, never left behind), and close() ends it. @default false */
  tiedToThisProcess?: boolean;
}

/** Starts `moto_server -p 0` (PATH, or MOTO_SERVER), waits for its port and its first HTTP answer. */
export async function startMoto(options: MotoOptions = {}): Promise<RunningMoto> {
  const command = process.env.MOTO_SERVER ?? 'moto_server';
  const serverArgs = ['-H', '127.0.0.1', '-p', '0'];
  const tied = options.tiedToThisProcess === true;
  const child = tied
    ? spawn('sh', ['-c', TIED, command, ...serverArgs], { stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(command, serverArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  const requests: { method: string; target: string; status: number }[] = [];
  let output = '';
  let port: number | undefined;
  let failed: Error | undefined;
  child.on('error', (error: NodeJS.ErrnoException) => {
    failed = new Error(error.code === 'ENOENT' ? NOT_INSTALLED : `moto_server could not start: ${error.message}`);
  });
  let pending = '';
  const read = (chunk: Buffer): void => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (output.length < 4000) output += `${line}\n`;
      port ??= Number(/Running on http:\/\/127\.0\.0\.1:(\d+)/.exec(line)?.[1]) || undefined;
      const logged = REQUEST_LINE.exec(line);
      if (logged) requests.push({ method: logged[1] as string, target: logged[2] as string, status: Number(logged[3]) });
    }
  };
  child.stdout?.on('data', read);
  child.stderr?.on('data', read);
  // Not events.once: it rejects on 'error' (a missing command), which is reported above instead.
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  await waitFor(
    () => port !== undefined || failed !== undefined || child.exitCode !== null,
    'moto_server to say its port',
    60_000,
    () => output,
  );
  if (failed) throw failed;
  if (port === undefined) throw new Error(tied && child.exitCode === 127 ? NOT_INSTALLED : `moto_server exited before it listened:\n${output}`);
  // Left running, it must not keep this process alive.
  if (tied) for (const handle of [child, child.stdin, child.stdout, child.stderr]) (handle as { unref?: () => void } | null)?.unref?.();
  const url = `http://127.0.0.1:${port}`;
  let markers = 0;
  const clearLog = async (): Promise<void> => {
    const marker = `/docextract-log-marker-${++markers}`;
    await get(`${url}${marker}`);
    await waitFor(
      () => requests.some((logged) => logged.target === marker),
      `moto to log ${marker}`,
      60_000,
      () => output,
    );
    requests.length = 0;
  };
  await post(`${url}/moto-api/reset`); // its first HTTP answer: the positive signal that it serves
  await clearLog();
  return {
    url,
    requests,
    env: { ...MOTO_CREDENTIALS, AWS_ENDPOINT_URL_S3: url },
    reset: async () => {
      await post(`${url}/moto-api/reset`);
      await clearLog();
    },
    clearLog,
    close: async () => {
      if (child.exitCode === null) {
        if (tied) child.stdin?.end();
        else stop(child);
        await exited;
      }
    },
  };
}

function stop(child: ChildProcess): void {
  child.kill('SIGTERM');
}

/** A GET whose answer, whatever its status, is read to its end. */
function get(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end();
  });
}

function post(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST' }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${url}: HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}
