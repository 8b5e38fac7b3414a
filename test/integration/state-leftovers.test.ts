/**
 * The state folder after a run that was cut short or never got going holds
 * no temporary file and no empty one: a reader that closed the pipe
 * (`extract … --json | head -c 10`), and a key the service refused.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startChildCli } from '../helpers/child-run.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { holdAnswersUntilReleased } from '../helpers/held-answers.js';
import { runCli } from '../helpers/run-cli.js';
import { waitFor } from '../helpers/wait-for.js';
import { CORPUS } from '../helpers/workspace.js';

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

/** Every file below the state folder with its size, by its name there. */
function stateFiles(stateDir: string): Record<string, number> {
  const found: Record<string, number> = {};
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else found[path.slice(stateDir.length + 1)] = statSync(path).size;
    }
  };
  walk(stateDir);
  return found;
}

function expectNoLeftovers(stateDir: string): void {
  const files = stateFiles(stateDir);
  expect(
    Object.keys(files).filter((name) => /\.tmp-\d+-/.test(name)),
    'tmp files',
  ).toEqual([]);
  expect(
    Object.entries(files)
      .filter(([, size]) => size === 0)
      .map(([name]) => name),
    'empty files',
  ).toEqual([]);
}

function inbox(goodFiles: number, refusedFiles: number): { dir: string; inputs: string } {
  const dir = mkdtempSync(join(tmpdir(), 'docextract-leftovers-'));
  const inputs = join(dir, 'in');
  mkdirSync(inputs);
  // Each good file different (a comment after %%EOF), so that each is its own upload, never a copy of another.
  for (let i = 0; i < goodFiles; i++)
    writeFileSync(join(inputs, `good-${i}.pdf`), Buffer.concat([readFileSync(join(CORPUS, 'pdf/pages-2.pdf')), Buffer.from(`\n% ${i}\n`)]));
  for (let i = 0; i < refusedFiles; i++) writeFileSync(join(inputs, `notes-${i}.pdf`), `not a PDF ${i}`);
  return { dir, inputs };
}

describe('what a cut-short run leaves in the state folder', () => {
  it('a key the service refuses leaves no results index and no empty journal', async () => {
    emu = await startTestEmulator();
    const env = emulatorEnv(emu, { DOCEXTRACT_API_KEY: `sk_${'0'.repeat(32)}` });
    const stateDir = String(env.DOCEXTRACT_STATE_DIR);
    const { dir, inputs } = inbox(2, 0);
    const run = await runCli(['extract', inputs, '--out', join(dir, 'out'), ...UNTHROTTLED_FLAGS], { env });
    expect(run.stderr).toContain('invalid_api_key');
    expect(run.code).toBe(3);
    expect(Object.keys(stateFiles(stateDir)).filter((name) => name.startsWith('results-'))).toEqual([]);
    expectNoLeftovers(stateDir);
  });

  it('a reader that closes the pipe mid-run (EPIPE) leaves no tmp file and no empty file', async () => {
    const held = holdAnswersUntilReleased({ endpoints: ['documents'] });
    let sent = 0;
    emu = await startTestEmulator({
      holdAnswer: (endpoint) => {
        if (endpoint === 'documents') sent += 1;
        return held.holdAnswer(endpoint);
      },
    });
    const env = emulatorEnv(emu);
    const stateDir = String(env.DOCEXTRACT_STATE_DIR);
    const { dir, inputs } = inbox(12, 40);
    // A process: the reader closes the process's stdout (EPIPE).
    const child = startChildCli(['extract', inputs, '--out', join(dir, 'out'), '--json', ...UNTHROTTLED_FLAGS], env);
    // The refused files' lines come first; the reader takes a few bytes of them and goes (`| head -c 10`).
    await waitFor(() => child.stdoutSoFar().length > 0, 'the first line');
    child.child.stdout?.destroy();
    // The CLI learns that the reader went at its next write (EPIPE): under load it may have written every refused
    // file's line before the pipe closed, so the next write is a finished document's. Answers flow again now.
    held.release();
    // It stops as on a first Ctrl-C: an upload it had sent is still finished and saved.
    await waitFor(() => child.stderrSoFar().includes('stdout closed: finishing the requests in flight and saving'), 'the run to stop');
    const run = await child.done;
    expect(run.signal).toBeNull();
    // Whatever was sent before the stop was paid for, and its result is on disk.
    const out = join(dir, 'out');
    expect(existsSync(out) ? readdirSync(out, { recursive: true }).filter((name) => String(name).endsWith('.json')).length : 0).toBe(sent);
    expectNoLeftovers(stateDir);
  });
});
