/**
 * Issue 52, item 2: the windows belong to the key. A rate limit declared by
 * flag, environment or profile is remembered for the key in the state
 * folder, beside its send log, and a later command on the key that declares
 * none (a `docextract collect <id>` pasted alone, `usage`) uses it; one that
 * declares its own uses that.
 */
import { readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator, emulatorEnv } from '../helpers/emulator-run.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/run-cli.js';
import { makeWorkspace } from '../helpers/workspace.js';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

interface UsageWindows {
  windows: { window: string; limit: number; used: number }[];
}

async function usageWindows(env: NodeJS.ProcessEnv, args: string[] = []): Promise<string[]> {
  const usage = await runCli(['usage', '--json', ...args], { env });
  expect(usage.code, usage.stderr).toBe(0);
  return (JSON.parse(usage.stdout) as UsageWindows).windows.map((window) => window.window);
}

describe('the windows a key was given, every command on it knows', () => {
  it('extract --rate-limit 40/min: a later usage with no rate limit counts in 40/min; the environment or a flag still says otherwise', async () => {
    emulator = await startTestEmulator();
    const env = emulatorEnv(emulator);
    const ws = makeWorkspace({ 'a.jpg': 'images/receipt.jpg' });
    const stateDir = String(env.DOCEXTRACT_STATE_DIR);

    const extract = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', '40/min'], { env });
    expect(extract.code, extract.stderr).toBe(0);
    expect(readdirSync(stateDir).filter((name) => name.startsWith('windows-'))).toHaveLength(1);
    expect(await usageWindows(env)).toEqual(['40/min']);
    // A dry run plans under the windows it is given, and keeps nothing.
    const dry = await runCli(['extract', ws.inputs, '--out', ws.out, '--dry-run', '--rate-limit', '5/min'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(await usageWindows(env)).toEqual(['40/min']);

    // Told otherwise, by the environment or a flag: that is what counts, and the environment is now the key's.
    expect(await usageWindows({ ...env, DOCEXTRACT_RATE_LIMIT: '5/min,50/h' })).toEqual(['5/min', '50/h']);
    const again = await runCli(['extract', ws.inputs, '--out', ws.out, '--json'], { env: { ...env, DOCEXTRACT_RATE_LIMIT: '30/min' } });
    expect(again.code, again.stderr).toBe(0);
    expect(await usageWindows(env)).toEqual(['30/min']);

    // Another key on the same state folder has windows of its own: the default.
    const other = { ...env, DOCEXTRACT_API_KEY: `sk_${'1'.repeat(32)}` };
    expect(await usageWindows(other)).toEqual(['10/min', '100/h', '1000/d', '10000/mo']);
  });
});
