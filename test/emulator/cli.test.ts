import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { addFault, parseLatency } from '../../src/emulator/cli-args.js';
import { launchEmulatorCli } from '../../src/emulator/cli.js';
import { bearer, expectError, makePdf, newKey, uploadForm } from './helpers.js';

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
      argv('--port', '0', '--key', key, '--rate-limit', '2/1min', '--credits', '50', '--ttl', '1ms', '--fault', 'health.server_busy=1', '--fault', '*.slow=0', '--latency', 'models=1,*=0', '--quiet'),
      streams.io,
    );
    try {
      expect(streams.out()).toBe(`${emulator.url}\n`);
      await expectError(await fetch(`${emulator.url}/v3.1/health`), 503, 'server_busy');
      const split = await fetch(`${emulator.url}/v3.1/documents`, { method: 'POST', headers: bearer(key), body: uploadForm(await makePdf(4)) });
      expect(split.status).toBe(202);
      const { job_id: jobId } = (await split.json()) as { job_id: string };
      await new Promise((resolve) => setTimeout(resolve, 5));
      await expectError(await fetch(`${emulator.url}/v3.1/result?job_id=${jobId}`, { headers: bearer(key) }), 410, 'job_expired');
      await expectError(await fetch(`${emulator.url}/v3.1/result?job_id=${jobId}`, { headers: bearer(key) }), 429, 'rate_limit_exceeded');
      expect((await (await fetch(`${emulator.url}/v3.1/authorised`, { headers: bearer(key) })).json()) as unknown).toMatchObject({ data: { credits_remaining: 50 } });
      expect(streams.err()).not.toMatch(/GET \/v3\.1/);
    } finally {
      await emulator.close();
    }
  });

  it('refuses bad flags with a usage error', async () => {
    for (const bad of [['--rate-limit', '10/fortnight'], ['--key', 'sk-abc'], ['--fault', 'documents.meteor=1'], ['--ttl', 'soon'], ['--port', '-1']]) {
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
    expect(() => addFault('documents.server_busy=2')).toThrow(RangeError);
  });
});
