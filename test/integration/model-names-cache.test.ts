import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { accountId } from '../../src/config/account-id.js';
import { COMPLETION_TYPES_FILE } from '../../src/config/state-dir.js';
import { readModelNames, rememberModelNames } from '../../src/store/model-names-cache.js';
import { emulatorEnv, startTestEmulator, TEST_KEY } from '../helpers/emulator-run.js';
import { runCli } from '../helpers/run-cli.js';

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator();
});
afterAll(async () => {
  await emulator.close();
});

function keptNames(env: NodeJS.ProcessEnv): string[] {
  return readModelNames(env.DOCEXTRACT_STATE_DIR as string, accountId(emulator.url, TEST_KEY)).map((entry) => entry.name);
}

describe('the document types kept for completion', () => {
  it('are written by docextract models, per account, with their descriptions', async () => {
    const env = emulatorEnv(emulator);
    expect((await runCli(['models'], { env })).code).toBe(0);
    expect(keptNames(env)).toEqual(expect.arrayContaining(['invoice', 'id_card', 'payslip']));
    expect(readModelNames(env.DOCEXTRACT_STATE_DIR as string, accountId(emulator.url, TEST_KEY))[0]).toEqual({
      name: 'invoice',
      description: expect.any(String) as string,
    });
    expect(readModelNames(env.DOCEXTRACT_STATE_DIR as string, accountId('http://127.0.0.1:9', TEST_KEY))).toEqual([]);
  });

  it('are written by a run that checks the names it was given (a dry run with --model)', async () => {
    const env = emulatorEnv(emulator);
    const inputs = join(env.HOME as string, 'in');
    mkdirSync(inputs);
    writeFileSync(join(inputs, 'a.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
    const run = await runCli(['extract', inputs, '--model', 'invoice', '--dry-run', '--out', join(env.HOME as string, 'out')], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(keptNames(env)).toContain('invoice');
  });

  it('are also kept as the plain list the completion scripts read: plain-word names only, each description on its line', () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'docextract-types-'));
    const hostile = ['inv$(touch x)', 'inv;rm -rf ~', 'inv`id`', 'a\nb', 'inv\u202eoice'];
    rememberModelNames(
      stateDir,
      'account',
      [{ name: 'invoice', description: 'Invoices\nand\tbills\u001b[2J' }, ...hostile.map((name) => ({ name })), { name: 'id_card' }],
      0,
    );
    expect(readFileSync(join(stateDir, COMPLETION_TYPES_FILE), 'utf8')).toBe('invoice\tInvoices and bills\\x1b[2J\nid_card\t\n');
  });

  it('never fail the command when they cannot be written', async () => {
    const env = emulatorEnv(emulator);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    mkdirSync(join(stateDir, '..'), { recursive: true });
    writeFileSync(stateDir, 'a file where the state folder should be');
    const run = await runCli(['models'], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('invoice');
  });
});
