/**
 * `docextract extract` without a key, now one call on a client built without one (issue 53): a run
 * whose every input is refused before sending needs no key and sends nothing (exit 1), one that
 * must send stops with the CLI's own `missing_api_key` (exit 2) before any request, and a dry run
 * says the document types went unchecked. The same lines and exit codes as the CLI's own shell gave.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { runCli } from '../helpers/run-cli.js';
import { makeWorkspace } from '../helpers/workspace.js';

let emu: RunningEmulator;
beforeAll(async () => (emu = await startTestEmulator()));
afterAll(() => emu.close());

const sent = (): number => Object.values(emu.counters.requestsByEndpoint).reduce((a, b) => a + b, 0);
const keyless = (): NodeJS.ProcessEnv => {
  const env = emulatorEnv(emu);
  delete env.DOCEXTRACT_API_KEY;
  return env;
};

describe('extract without a key', () => {
  it('reports inputs that are all refused before sending, exit 1, nothing sent', async () => {
    const ws = makeWorkspace({ 'one.pdf': 'pdf/pages-1.pdf' });
    const before = sent();
    const run = await runCli(['extract', `${ws.inputs}/missing.pdf`, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env: keyless() });
    expect(run.code, run.stderr).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'failed', error: { code: 'file_not_found' } });
    expect(run.stderr).not.toContain('missing_api_key');
    expect(sent()).toBe(before);
  });

  it('stops a run that must send with the CLI missing_api_key, exit 2, before any request', async () => {
    const ws = makeWorkspace({ 'one.pdf': 'pdf/pages-1.pdf' });
    const before = sent();
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, ...UNTHROTTLED_FLAGS], { env: keyless() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('No API key is configured.');
    expect(run.stderr).toContain('missing_api_key');
    expect(sent()).toBe(before);
  });

  it('--dry-run plans without one and says the document types were not checked', async () => {
    const ws = makeWorkspace({ 'one.pdf': 'pdf/pages-1.pdf' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--dry-run', '--model', 'invoice'], { env: keyless() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('no API key: the document types were not checked against the service');
    expect(run.stdout).toContain('total: 1 file');
  });
});
