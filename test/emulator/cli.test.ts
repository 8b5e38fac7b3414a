import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { addFault, buildEmulatorProgram, cliConfigFrom, parseLatency, parsedValues } from '../../src/emulator/cli-args.js';
import { parseForeignJobs, parseRequestRate, parseSignedDuration } from '../../src/emulator/durations.js';
import { launchEmulatorCli } from '../../src/emulator/cli.js';
import { envFileText } from '../../src/emulator/env-file.js';
import { DEFAULT_RATE_LIMITS } from '../../src/emulator/defaults.js';
import { parseRateWindows as parseClientWindows } from '../../src/config/grammar/rate-limit.js';
import { titledPdf } from '../helpers/make-pdf.js';
import { bearer, expectError, newKey, uploadForm } from './helpers.js';

function capture(): { io: { stdout: { write(text: string): boolean }; stderr: { write(text: string): boolean } }; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    io: {
      stdout: { write: (text) => ((out += text), true) },
      stderr: { write: (text) => ((err += text), true) },
    },
    out: () => out,
    err: () => err,
  };
}

const argv = (...args: string[]): string[] => ['node', 'docextract-emulator', ...args];

describe('docextract-emulator CLI', () => {
  it('--write-env writes export lines a shell sources (mode 0600): the base URL it gives answers /v3.1/health (issue 55)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'emulator-env-'));
    const file = join(dir, "it's emulator.env");
    const streams = capture();
    const emulator = await launchEmulatorCli(argv('--port', '0', '--rate-limit', '8/1s,60/12s', '--write-env', file, '--quiet'), streams.io);
    try {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir)).toEqual(["it's emulator.env"]); // the temp file was renamed, not left beside it
      const sourced = execFileSync(
        'bash',
        ['-c', '. "$1"; printf "%s\\n" "$DOCEXTRACT_BASE_URL" "$DOCEXTRACT_RATE_LIMIT" "$DOCEXTRACT_API_KEY"', 'bash', file],
        {
          encoding: 'utf8',
          env: { PATH: process.env.PATH },
        },
      );
      const [url, rateLimit, key] = sourced.split('\n');
      expect(url).toBe(emulator.url);
      expect(rateLimit).toBe('8/s,60/12s');
      expect(key).toBe(streams.out().split('\n')[1]);
      const health = await fetch(`${url}/v3.1/health`);
      expect(health.status).toBe(200);
    } finally {
      await emulator.close();
    }
  });

  it('--write-env quotes a value for the shell', () => {
    expect(envFileText([['A', "x'; rm -rf ~ #"]])).toBe("export A='x'\\''; rm -rf ~ #'\n");
    expect(envFileText([['B', 'http://127.0.0.1:8787']])).toBe('export B=http://127.0.0.1:8787\n');
  });

  it('prints the base URL, then the generated key, on stdout; banner and request log on stderr', async () => {
    const streams = capture();
    const emulator = await launchEmulatorCli(argv('--port', '0'), streams.io);
    try {
      const [url, key, rest] = streams.out().split('\n');
      expect(url).toBe(emulator.url);
      expect(key).toMatch(/^sk_[0-9a-f]{32}$/);
      expect(rest).toBe('');
      expect(streams.err()).toContain(`listening on ${emulator.url}`);
      expect((await fetch(`${url}/v3.1/authorised`, { headers: bearer(key ?? '') })).status).toBe(200);
      expect(streams.err()).toMatch(/GET \/v3\.1\/authorised 200/);
    } finally {
      await emulator.close();
    }
  });

  it('uses the given keys, limits and faults, and stays quiet with --quiet', async () => {
    const key = newKey();
    const streams = capture();
    const emulator = await launchEmulatorCli(
      argv(
        '--port',
        '0',
        '--key',
        key,
        '--rate-limit',
        '2/1min',
        '--credits',
        '50',
        '--ttl',
        '1ms',
        '--fault',
        'health.server_busy=1',
        '--fault',
        '*.slow=0',
        '--latency',
        'models=1,*=0',
        '--quiet',
      ),
      streams.io,
    );
    try {
      expect(streams.out()).toBe(`${emulator.url}\n`);
      await expectError(await fetch(`${emulator.url}/v3.1/health`), 503, 'server_busy');
      const split = await fetch(`${emulator.url}/v3.1/documents`, { method: 'POST', headers: bearer(key), body: uploadForm(await titledPdf(4)) });
      expect(split.status).toBe(202);
      const { job_id: jobId } = (await split.json()) as { job_id: string };
      // The emulator's command line runs on the real clock (it has no clock to inject): 5 ms are a lower
      // bound past the 1 ms TTL, which no load can shorten, so the job has expired whatever the machine.
      await new Promise((resolve) => setTimeout(resolve, 5));
      await expectError(await fetch(`${emulator.url}/v3.1/result?job_id=${jobId}`, { headers: bearer(key) }), 410, 'job_expired');
      await expectError(await fetch(`${emulator.url}/v3.1/result?job_id=${jobId}`, { headers: bearer(key) }), 429, 'rate_limit_exceeded');
      expect((await (await fetch(`${emulator.url}/v3.1/authorised`, { headers: bearer(key) })).json()) as unknown).toMatchObject({
        data: { credits_remaining: 50 },
      });
      expect(streams.err()).not.toMatch(/GET \/v3\.1/);
    } finally {
      await emulator.close();
    }
  });

  it('refuses bad flags with a usage error', async () => {
    for (const bad of [
      ['--rate-limit', '10/fortnight'],
      ['--key', 'sk-abc'],
      ['--fault', 'documents.meteor=1'],
      ['--ttl', 'soon'],
      ['--port', '-1'],
      ['--clock-skew', 'late'],
      ['--reset-style', 'sundial'],
      ['--foreign-rate', 'fast'],
      ['--foreign-jobs', 'some@2h'],
      ['--oversize-bytes', '1.5GB'],
      ['--tls-cert', '/nonexistent/cert.pem', '--tls-key', '/nonexistent/key.pem'],
      ['--port', '0', '--tls-cert', import.meta.filename],
    ]) {
      const streams = capture();
      await expect(launchEmulatorCli(argv(...bad), streams.io)).rejects.toBeInstanceOf(CommanderError);
      expect(streams.err()).toMatch(/error/i);
    }
  });

  it('parses fault and latency flags, with * for every endpoint', () => {
    const faults = addFault('process.reset_after=0.25', addFault('*.server_busy=0.1'));
    expect(faults.process).toEqual({ server_busy: 0.1, reset_after: 0.25 });
    expect(faults.health).toEqual({ server_busy: 0.1 });
    expect(parseLatency('*=10,process=200')).toMatchObject({ documents: 10, process: 200 });
    expect(parseLatency('documents=1.5s..2.5s')).toEqual({ documents: { minMs: 1_500, maxMs: 2_500 } });
    expect(() => parseLatency('documents=2s..1s')).toThrow(/range/);
    expect(() => addFault('documents.server_busy=2')).toThrow(RangeError);
  });

  it('parses the world and lying-server flags into options', () => {
    const program = buildEmulatorProgram().exitOverride();
    program.parse(
      argv(
        '--clock-skew',
        '-4s',
        '--reset-style',
        'delta-seconds',
        '--foreign-rate',
        '1/500ms',
        '--foreign-jobs',
        '3@10m',
        '--oversize-bytes',
        '4194304',
        '--fault',
        'result.gzip_bomb=0.5',
        '--fault',
        '*.trickle_stop=0.1',
        '--credits-used-skew=-2',
      ),
    );
    const { options } = cliConfigFrom(parsedValues(program));
    expect(options).toMatchObject({
      clockSkewMs: -4_000,
      resetStyle: 'delta-seconds',
      foreignRate: { count: 1, perMs: 500 },
      foreignJobs: { count: 3, ttlMs: 600_000 },
      oversizeBytes: 4_194_304,
      faults: { result: { gzip_bomb: 0.5, trickle_stop: 0.1 }, health: { trickle_stop: 0.1 } },
      creditsUsedSkew: -2,
    });
    expect(options.tls).toBeUndefined();
  });

  it('reads signed durations, rates and foreign-job counts', () => {
    expect([parseSignedDuration('4s'), parseSignedDuration('+4s'), parseSignedDuration('-1.5min'), parseSignedDuration('-250')]).toEqual([
      4_000, 4_000, -90_000, -250,
    ]);
    expect([parseRequestRate('2/s'), parseRequestRate('1/500ms'), parseRequestRate('/min'), parseRequestRate('30/2h')]).toEqual([
      { count: 2, perMs: 1_000 },
      { count: 1, perMs: 500 },
      { count: 1, perMs: 60_000 },
      { count: 30, perMs: 7_200_000 },
    ]);
    expect([parseForeignJobs('5'), parseForeignJobs('3@10m'), parseForeignJobs('2@90s')]).toEqual([
      { count: 5 },
      { count: 3, ttlMs: 600_000 },
      { count: 2, ttlMs: 90_000 },
    ]);
    for (const bad of ['0/s', '2/', 'two/s']) expect(() => parseRequestRate(bad)).toThrow(RangeError);
    expect(() => parseSignedDuration('--4s')).toThrow(RangeError);
  });
});

describe('docextract-emulator tells the client its windows', () => {
  it.each([
    [[], '10/min,100/h,1000/d,10000/mo'],
    [['--rate-limit', '8/1s,60/12s'], '8/s,60/12s'],
    [['--rate-limit', '5/1.5s,100/90min,1000/7d'], '5/1500ms,100/90min,1000/7d'],
    [['--rate-limit', 'none'], 'none'],
  ])('with %j it prints DOCEXTRACT_RATE_LIMIT=%s, which the client reads as the same windows', async (flags, spec) => {
    const streams = capture();
    const emulator = await launchEmulatorCli(argv('--port', '0', '--quiet', ...flags), streams.io);
    try {
      const line = /^ {2}for the client: (.*)$/m.exec(streams.err())?.[1] ?? '';
      const env = Object.fromEntries(line.split(' ').map((pair) => pair.split('=') as [string, string]));
      expect(env).toEqual({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_RATE_LIMIT: spec, DOCEXTRACT_API_KEY: streams.out().split('\n')[1] });
      const emulatorWindows =
        cliConfigFrom(
          parsedValues(
            buildEmulatorProgram()
              .exitOverride()
              .parse(argv(...flags)),
          ),
        ).options.rateLimits ?? DEFAULT_RATE_LIMITS;
      expect(parseClientWindows(spec).map(({ limit, windowMs }) => ({ limit, windowMs }))).toEqual(emulatorWindows);
    } finally {
      await emulator.close();
    }
  });
});
