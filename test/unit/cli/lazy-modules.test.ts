/**
 * Start-up is part of the product (issue 30): --help, --version and a
 * command's help load none of the heavy dependencies, and no command loads
 * pdf-lib, ajv or the MCP SDK unless it needs them. Each heavy module is
 * counted as it is loaded.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { isolatedEnv, runCli } from '../../helpers/run-cli.js';
import { tinyPng } from '../../../scripts/bench/files.js';

const loaded = vi.hoisted(() => ({}) as Record<string, number>);
// A CommonJS module's namespace may lack a `default` of its own: vitest wants one.
const counted = vi.hoisted(() => (name: string, original: Record<string, unknown>) => {
  loaded[name] = (loaded[name] ?? 0) + 1;
  return 'default' in original ? original : { ...original, default: original };
});
// One mock per specifier src/ imports (vi.mock is hoisted: each must be spelled out).
vi.mock('ajv/dist/2020.js', async (load) => {
  const original = await load<{ Ajv2020: unknown }>();
  return counted('ajv/dist/2020.js', { Ajv2020: original.Ajv2020, default: original });
});
// ajv-formats' module.exports is its plugin function: a namespace holds it as `default`, as Node's would.
vi.mock('ajv-formats', async (load) => counted('ajv-formats', { default: await load() }));
vi.mock('pdf-lib', async (load) => counted('pdf-lib', await load()));
vi.mock('@modelcontextprotocol/sdk/server/mcp.js', async (load) => counted('@modelcontextprotocol/sdk/server/mcp.js', await load()));
vi.mock('@modelcontextprotocol/sdk/server/stdio.js', async (load) => counted('@modelcontextprotocol/sdk/server/stdio.js', await load()));
vi.mock('@modelcontextprotocol/sdk/types.js', async (load) => counted('@modelcontextprotocol/sdk/types.js', await load()));
vi.mock('ora', async (load) => counted('ora', await load()));
vi.mock('cli-progress', async (load) => counted('cli-progress', await load()));
// undici by the modules of its two classes and one api method src/ loads (src/api/undici-parts.d.ts), and by its index, which no command may load.
vi.mock('undici', async (load) => counted('undici', await load()));
vi.mock('undici/lib/dispatcher/pool.js', async (load) => counted('undici/lib/dispatcher/pool.js', await load()));
vi.mock('undici/lib/dispatcher/env-http-proxy-agent.js', async (load) => counted('undici/lib/dispatcher/env-http-proxy-agent.js', await load()));
vi.mock('undici/lib/api/api-connect.js', async (load) => counted('undici/lib/api/api-connect.js', await load()));
vi.mock('fast-glob', async (load) => counted('fast-glob', await load()));
vi.mock('csv-stringify', async (load) => counted('csv-stringify', await load()));
vi.mock('conf', async (load) => counted('conf', await load()));
vi.mock('zod', async (load) => counted('zod', await load()));
vi.mock('p-queue', async (load) => counted('p-queue', await load()));
vi.mock('picomatch', async (load) => counted('picomatch', await load()));
vi.mock('@aws-sdk/client-s3', async (load) => counted('@aws-sdk/client-s3', await load()));

// Every dependency src/ imports at run time but commander (the CLI itself) and chalk (its colours).
// ajv itself is reached only through ajv/dist/2020.js (its validators): counting that one counts it.
// pdf.js (pdfjs-dist) is never imported by Node: the review page's browser loads it from disk.
const HEAVY = [
  'ajv/dist/2020.js',
  'ajv-formats',
  'pdf-lib',
  '@modelcontextprotocol/sdk/server/mcp.js',
  '@modelcontextprotocol/sdk/server/stdio.js',
  '@modelcontextprotocol/sdk/types.js',
  'ora',
  'cli-progress',
  'undici',
  'undici/lib/dispatcher/pool.js',
  'undici/lib/dispatcher/env-http-proxy-agent.js',
  'undici/lib/api/api-connect.js',
  'fast-glob',
  'csv-stringify',
  'conf',
  'zod',
  'p-queue',
  'picomatch',
  '@aws-sdk/client-s3',
];
/** What only some commands need: schemas (ajv), cutting PDFs (pdf-lib), serving agents (the MCP SDK), s3:// arguments (the AWS SDK, ~400 ms). */
const ONLY_WHEN_NEEDED = [
  '@aws-sdk/client-s3',
  'ajv/dist/2020.js',
  'ajv-formats',
  'pdf-lib',
  '@modelcontextprotocol/sdk/server/mcp.js',
  '@modelcontextprotocol/sdk/server/stdio.js',
  '@modelcontextprotocol/sdk/types.js',
];

function loadedOf(names: readonly string[]): string[] {
  return names.filter((name) => (loaded[name] ?? 0) > 0);
}

describe('heavy dependencies are loaded only by the commands that use them', () => {
  it('--help, --version and the help of every command load none of them', async () => {
    const env = isolatedEnv();
    for (const args of [
      ['--help'],
      ['--version'],
      ['help'],
      ...['extract', 'watch', 'collect', 'process', 'check', 'export', 'review', 'jobs', 'mcp', 'config'].map((name) => [name, '--help']),
    ]) {
      expect((await runCli(args, { env })).code, args.join(' ')).toBe(0);
    }
    expect(loadedOf(HEAVY)).toEqual([]);
  });

  it('config list loads at most its store', async () => {
    expect((await runCli(['config', 'list'], { env: isolatedEnv() })).code).toBe(0);
    expect(loadedOf(HEAVY.filter((name) => name !== 'conf'))).toEqual([]);
  });

  it('a dry run of images loads neither pdf-lib, ajv, the MCP SDK nor the AWS SDK', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'docextract-lazy-'));
    writeFileSync(join(dir, 'a.png'), tinyPng('lazy a'));
    writeFileSync(join(dir, 'b.png'), tinyPng('lazy b'));
    const run = await runCli(['extract', dir, '--dry-run', '--json'], { env: isolatedEnv(), cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    expect(loadedOf(ONLY_WHEN_NEEDED)).toEqual([]);
  });

  it('ajv is loaded by a command given a schema', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'docextract-lazy-'));
    writeFileSync(join(dir, 'invoice.json'), '{"type": "object"}');
    const run = await runCli(['check', dir, '--schema', 'invoice=invoice.json'], { env: isolatedEnv(), cwd: dir });
    expect(run.stderr).toBe('0 results: 0 passed, 0 failed checks, 1 other JSON file skipped · nothing sent\n');
    expect(run.code).toBe(0);
    expect(loaded['ajv/dist/2020.js']).toBe(1);
    expect(loaded['ajv-formats']).toBe(1);
  });

  it("a command that reaches the service loads undici's two classes and connect by their own modules, never undici's index", async () => {
    // Imported here: the emulator itself loads pdf-lib (it splits PDFs), which the tests above must not see.
    const { emulatorEnv, startTestEmulator } = await import('../../helpers/emulator-run.js');
    const emu = await startTestEmulator();
    try {
      const run = await runCli(['whoami'], { env: emulatorEnv(emu) });
      expect(run.code, run.stderr).toBe(0);
    } finally {
      await emu.close();
    }
    expect(loadedOf(['undici', 'undici/lib/dispatcher/pool.js', 'undici/lib/dispatcher/env-http-proxy-agent.js', 'undici/lib/api/api-connect.js'])).toEqual([
      'undici/lib/dispatcher/pool.js',
      'undici/lib/dispatcher/env-http-proxy-agent.js',
      'undici/lib/api/api-connect.js',
    ]);
  });
});
