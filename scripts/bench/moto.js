// moto 5's `moto_server`, a real S3-compatible server, for the S3 section: the same start as the
// tests' (test/helpers/moto.ts: a free port, its first HTTP answer as the sign that it serves), in
// plain JavaScript for the bench. Its request log (werkzeug's lines) is the count of what a run asked
// the store. Buckets and objects are made with plain unsigned HTTP (moto checks no signature).
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnTracked, stopTracked } from './procs.js';

/** Credentials moto accepts (any): set in the CLI's environment, never the machine's. */
export const MOTO_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1', AWS_EC2_METADATA_DISABLED: 'true' };

const REQUEST_LINE = /"([A-Z]+) (\S+) HTTP\/[\d.]+" (\d{3})/;

/**
 * Starts `moto_server` (PATH, or MOTO_SERVER). A missing server is an error, as in the tests.
 * @returns {Promise<{ url: string, env: Record<string, string>, requests: { method: string, target: string, status: number }[], put: (path: string, body?: Buffer) => Promise<number>, get: (path: string) => Promise<{ status: number, body: string }>, close: () => Promise<void> }>}
 */
export async function startMoto() {
  const command = process.env.MOTO_SERVER ?? 'moto_server';
  const child = spawnTracked(command, ['-H', '127.0.0.1', '-p', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const requests = [];
  let output = '';
  let port;
  let failed;
  child.on('error', (error) => {
    failed = error.code === 'ENOENT' ? new Error(`moto_server is not installed (not on PATH): pip install 'moto[server]'`) : error;
  });
  let pending = '';
  const read = (chunk) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (output.length < 4000) output += `${line}\n`;
      port ??= Number(/Running on http:\/\/127\.0\.0\.1:(\d+)/.exec(line)?.[1]) || undefined;
      const logged = REQUEST_LINE.exec(line);
      if (logged) requests.push({ method: logged[1], target: logged[2], status: Number(logged[3]) });
    }
  };
  child.stdout.on('data', read);
  child.stderr.on('data', read);
  const deadline = performance.now() + 60_000;
  while (port === undefined && failed === undefined && child.exitCode === null) {
    if (performance.now() > deadline) throw new Error(`moto_server did not say its port in 60 s:\n${output}`);
    await sleep(50);
  }
  if (failed) throw failed;
  if (port === undefined) throw new Error(`moto_server exited before it listened:\n${output}`);
  const url = `http://127.0.0.1:${port}`;
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const call = (method, path, body) =>
    new Promise((resolve, reject) => {
      const req = request(`${url}${path}`, { method, agent }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (piece) => (text += piece));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  const reset = await call('POST', '/moto-api/reset');
  if (reset.status !== 200) throw new Error(`moto_server: reset answered HTTP ${reset.status}`);
  return {
    url,
    env: { ...MOTO_CREDENTIALS, AWS_ENDPOINT_URL_S3: url },
    requests,
    put: async (path, body) => (await call('PUT', path, body)).status,
    get: (path) => call('GET', path),
    close: async () => {
      agent.destroy();
      await stopTracked(child);
    },
  };
}

/** The keys below `prefix` of `bucket`, by ListObjectsV2 pages (plain XML, read with a pattern: moto's answers only). */
export async function countKeys(moto, bucket, prefix) {
  let count = 0;
  let token = null;
  do {
    const query = `list-type=2&prefix=${encodeURIComponent(prefix)}${token ? `&continuation-token=${encodeURIComponent(token)}` : ''}`;
    const page = await moto.get(`/${bucket}?${query}`);
    if (page.status !== 200) throw new Error(`listing s3://${bucket}/${prefix}: HTTP ${page.status}`);
    count += (page.body.match(/<Key>/g) ?? []).length;
    token = /<NextContinuationToken>([^<]+)<\/NextContinuationToken>/.exec(page.body)?.[1] ?? null;
  } while (token);
  return count;
}
