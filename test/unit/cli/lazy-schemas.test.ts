import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { isolatedEnv, runCli } from '../../helpers/run-cli.js';

const loaded = vi.hoisted(() => ({ ajv: 0 }));
vi.mock('ajv/dist/2020.js', async (importOriginal) => {
  loaded.ajv += 1;
  const original = await importOriginal<{ Ajv2020: unknown }>();
  return { Ajv2020: original.Ajv2020, default: original };
});

describe('ajv is loaded only when schemas are in use', () => {
  it('is not loaded by --help, --version or a command without schemas', async () => {
    const env = isolatedEnv();
    expect((await runCli(['--help'], { env })).code).toBe(0);
    expect((await runCli(['--version'], { env })).code).toBe(0);
    expect((await runCli(['extract', '--help'], { env })).code).toBe(0);
    expect((await runCli(['check', '--help'], { env })).code).toBe(0);
    expect((await runCli(['config', 'list'], { env })).code).toBe(0);
    expect(loaded.ajv).toBe(0);
  });

  it('is loaded by a command given a schema', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'docextract-lazy-'));
    writeFileSync(join(dir, 'invoice.json'), '{"type": "object"}');
    const run = await runCli(['check', dir, '--schema', 'invoice=invoice.json'], { env: isolatedEnv(), cwd: dir });
    expect(run.stderr).toBe('0 results: 0 passed, 0 failed checks, 1 other JSON file skipped · nothing sent\n');
    expect(run.code).toBe(0);
    expect(loaded.ajv).toBe(1);
  });
});
