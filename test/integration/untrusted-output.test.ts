/**
 * Hostile documents on a terminal: file names carrying escape sequences (OSC
 * 52 sets the clipboard, OSC 0 the window title), a newline that would print
 * a fake `complete` line and a right-to-left override; service texts carrying
 * the same. Each command's human output shows them escaped, one line per
 * line of ours, with no control byte; `--json` keeps the exact text.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import {
  expectNothingRaw,
  FAKE_LINE_NAME,
  FAKE_LINE_NAME_SHOWN,
  HOSTILE_SERVICE_TEXT,
  HOSTILE_SERVICE_TEXT_SHOWN,
  OSC_NAME,
  OSC_NAME_SHOWN,
  RTL_NAME,
  RTL_NAME_SHOWN,
} from '../helpers/hostile-text.js';
import { rewritingFetch, withErrorMessage } from '../helpers/hostile-service.js';
import { runCli } from '../helpers/run-cli.js';
import { CORPUS, makeWorkspace, parseNdjson } from '../helpers/workspace.js';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const HOSTILE_NAMES = [OSC_NAME, FAKE_LINE_NAME, RTL_NAME] as const;
const SHOWN_NAMES = [OSC_NAME_SHOWN, FAKE_LINE_NAME_SHOWN, RTL_NAME_SHOWN] as const;
/** An empty file under a hostile name: refused before sending, with a message that names it. */
const EMPTY_NAME = `empty${OSC_NAME}`;
const EMPTY_NAME_SHOWN = `empty${OSC_NAME_SHOWN}`;

/** A folder of one-page PDFs under the hostile names, and the empty one. */
function hostileInbox(): { dir: string; inputs: string; out: string } {
  const ws = makeWorkspace({});
  mkdirSync(ws.inputs, { recursive: true });
  for (const name of HOSTILE_NAMES) copyFileSync(join(CORPUS, 'pdf/pages-1.pdf'), join(ws.inputs, name));
  writeFileSync(join(ws.inputs, EMPTY_NAME), '');
  return ws;
}

/** A line that starts with `prefix`, as the matcher of a list of lines. */
function startingWith(prefix: string): unknown {
  return expect.stringMatching(new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
}

/** The lines a person sees, each checked for raw controls; the count tells a name's newline from a line of ours. */
function humanLines(text: string, what: string): string[] {
  expectNothingRaw(text, what);
  return text.split('\n').filter((line) => line !== '');
}

describe('a hostile file name on the terminal', () => {
  let setup: { env: NodeJS.ProcessEnv; ws: ReturnType<typeof hostileInbox>; extract: Awaited<ReturnType<typeof runCli>> };

  beforeAll(async () => {
    const emu = await startTestEmulator();
    const ws = hostileInbox();
    const env = emulatorEnv(emu);
    const extract = await runCli(['extract', ws.inputs, '--out', ws.out, ...UNTHROTTLED_FLAGS], { env, cwd: ws.dir });
    await emu.close();
    setup = { env, ws, extract };
  });

  it('extract: one line per file, each name escaped, the empty one refused by its escaped name', () => {
    const { extract } = setup;
    expect(extract.code).toBe(1);
    const lines = humanLines(extract.stdout, 'extract stdout');
    expect(lines).toHaveLength(4);
    for (const shown of SHOWN_NAMES) expect(lines).toContainEqual(expect.stringContaining(`complete  in/${shown} -> ${setup.ws.out}/${shown}.json (1 page)`));
    expect(lines).toContainEqual(
      expect.stringContaining(`failed    in/${EMPTY_NAME_SHOWN}: ${setup.ws.inputs}/${EMPTY_NAME_SHOWN} is empty (0 bytes). (invalid_file)`),
    );
    // No line of its own begins where a name's newline was.
    expect(lines.filter((line) => line.startsWith('complete  payroll.pdf'))).toEqual([]);
    humanLines(extract.stderr, 'extract stderr');
  });

  it('extract --json keeps the exact names, as JSON escapes them (it is data, not a display)', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = hostileInbox();
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env: emulatorEnv(emu), cwd: ws.dir });
    // eslint-disable-next-line no-control-regex -- C0 controls are what JSON escapes
    expect(run.stdout).not.toMatch(/[\x00-\x09\x0b-\x1f]/);
    expect(
      parseNdjson(run.stdout)
        .map((line) => line.file)
        .sort(),
    ).toEqual([...HOSTILE_NAMES, EMPTY_NAME].map((name) => `in/${name}`).sort());
  });

  it('extract --dry-run: each file on its line, escaped', async () => {
    const run = await runCli(['extract', setup.ws.inputs, '--out', join(setup.ws.dir, 'other-out'), '--dry-run', '--rate-limit', 'none'], {
      env: setup.env,
      cwd: setup.ws.dir,
    });
    const lines = humanLines(run.stdout, 'dry-run stdout');
    for (const shown of SHOWN_NAMES) expect(lines).toContainEqual(expect.stringContaining(`in/${shown}  (`));
    expect(lines).toContainEqual(expect.stringContaining(`rejected  in/${EMPTY_NAME_SHOWN}: `));
    expect(lines).toHaveLength(3 + 1 + 1);
  });

  it("jobs: the last run's failed file and its stored message, replayed escaped", async () => {
    const run = await runCli(['jobs'], { env: setup.env });
    expect(run.code, run.stderr).toBe(0);
    const lines = humanLines(run.stdout, 'jobs stdout');
    expect(lines).toContainEqual(startingWith(`  in/${EMPTY_NAME_SHOWN}  failed  invalid_file: ${setup.ws.inputs}/${EMPTY_NAME_SHOWN} is empty`));
    // The report keeps the raw text: rendered at the terminal, stored as it came.
    const json = parseNdjson((await runCli(['jobs', '--json'], { env: setup.env })).stdout);
    expect(json.map((line) => line.file)).toContain(`in/${EMPTY_NAME}`);
  });

  it('check: the result names, the model a result records and the data keys its schema refuses, escaped', async () => {
    const results = readdirSync(setup.ws.out).filter((name) => name.endsWith('.json'));
    expect(results).toHaveLength(3);
    // A result as a hostile service could have made it: its model and a data key carry controls.
    const edited = join(setup.ws.out, `${OSC_NAME}.json`);
    const result = JSON.parse(readFileSync(edited, 'utf8')) as Record<string, unknown>;
    writeFileSync(edited, JSON.stringify({ ...result, model: `invoice${HOSTILE_SERVICE_TEXT}`, data: { [`total${HOSTILE_SERVICE_TEXT}`]: 1 } }));
    const schema = join(setup.ws.dir, 'closed.json');
    writeFileSync(schema, JSON.stringify({ type: 'object', additionalProperties: false, properties: {} }));
    const run = await runCli(['check', setup.ws.out, '--schema', `invoice=${schema}`, '--schema', `invoice${HOSTILE_SERVICE_TEXT}=${schema}`], {
      env: setup.env,
    });
    const lines = humanLines(run.stdout, 'check stdout');
    expect(lines).toHaveLength(3);
    expect(lines).toContain(
      `failed    ${OSC_NAME_SHOWN}.json (invoice${HOSTILE_SERVICE_TEXT_SHOWN}): checks failed: total${HOSTILE_SERVICE_TEXT_SHOWN} is not allowed`,
    );
    humanLines(run.stderr, 'check stderr');
  });

  it('export: a JSON file that is no result is skipped by its escaped name', async () => {
    writeFileSync(join(setup.ws.out, `${FAKE_LINE_NAME}.notes.json`), '{"hello": 1}');
    const run = await runCli(['export', setup.ws.out, '--out', join(setup.ws.dir, 'tables')], { env: setup.env });
    const lines = humanLines(run.stderr, 'export stderr');
    expect(lines).toContain(`skipped ${FAKE_LINE_NAME_SHOWN}.notes.json: not a docextract result`);
    expect(lines.filter((line) => line.startsWith('complete  payroll.pdf'))).toEqual([]);
  });
});

describe('a hostile service text on the terminal', () => {
  it('models: names and descriptions from the service, escaped, one line each', async () => {
    const emu = (emulator = await startTestEmulator());
    const fetch = rewritingFetch((endpoint, body) =>
      endpoint === 'models'
        ? { success: true, data: { models: [{ name: `invoice${HOSTILE_SERVICE_TEXT}`, description: `bills ${HOSTILE_SERVICE_TEXT}` }, { name: RTL_NAME }] } }
        : body,
    );
    const run = await runCli(['models'], { env: emulatorEnv(emu), fetch });
    expect(run.code, run.stderr).toBe(0);
    expect(humanLines(run.stdout, 'models stdout')).toEqual([`invoice${HOSTILE_SERVICE_TEXT_SHOWN}  bills ${HOSTILE_SERVICE_TEXT_SHOWN}`, RTL_NAME_SHOWN]);
  });

  it('an error the service words: its message escaped on the error line', async () => {
    const emu = (emulator = await startTestEmulator({ faults: { models: { server_error: 1 } } }));
    const run = await runCli(['models'], { env: emulatorEnv(emu), fetch: rewritingFetch(withErrorMessage(HOSTILE_SERVICE_TEXT)) });
    expect(run.code).toBe(1);
    const lines = humanLines(run.stderr, 'models stderr');
    expect(lines[0]).toBe(`error: models: HTTP 500 server_error: ${HOSTILE_SERVICE_TEXT_SHOWN} (server_error)`);
  });

  it("extract: a failed file's message from the service, escaped on its line, and again when jobs replays it", async () => {
    const emu = (emulator = await startTestEmulator({ faults: { documents: { extraction_failed: 1 } } }));
    const ws = makeWorkspace({ [RTL_NAME]: 'pdf/pages-1.pdf' });
    const env = emulatorEnv(emu);
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, ...UNTHROTTLED_FLAGS], {
      env,
      cwd: ws.dir,
      fetch: rewritingFetch(withErrorMessage(HOSTILE_SERVICE_TEXT)),
    });
    expect(run.code).toBe(1);
    const lines = humanLines(run.stdout, 'extract stdout');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`failed    in/${RTL_NAME_SHOWN}: documents: HTTP 422 extraction_failed: ${HOSTILE_SERVICE_TEXT_SHOWN} (1 credit charged)`);
    const jobs = await runCli(['jobs'], { env });
    expect(humanLines(jobs.stdout, 'jobs stdout')).toContainEqual(
      startingWith(`  in/${RTL_NAME_SHOWN}  failed  extraction_failed: documents: HTTP 422 extraction_failed: ${HOSTILE_SERVICE_TEXT_SHOWN}`),
    );
  });

  it('usage --by model: the document type the service said it used, escaped in its row', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-1.pdf' });
    const env = emulatorEnv(emu);
    const fetch = rewritingFetch((endpoint, body) =>
      endpoint === 'documents' && body.success === true ? { ...body, model_used: `invoice${HOSTILE_SERVICE_TEXT}` } : body,
    );
    const extract = await runCli(['extract', ws.inputs, '--out', ws.out, ...UNTHROTTLED_FLAGS], { env, cwd: ws.dir, fetch });
    expect(extract.code, extract.stderr).toBe(0);
    const run = await runCli(['usage', '--by', 'model'], { env });
    expect(run.code, run.stderr).toBe(0);
    const lines = humanLines(run.stdout, 'usage stdout');
    expect(lines).toContainEqual(startingWith(`invoice${HOSTILE_SERVICE_TEXT_SHOWN}  `));
  });

  it('a usage error quoting an argument a shell glob made from a file name: escaped', async () => {
    const run = await runCli(['extract', `-${OSC_NAME}`], { env: emulatorEnv((emulator = await startTestEmulator())) });
    expect(run.code).toBe(2);
    expect(humanLines(run.stderr, 'usage error stderr')[0]).toContain(`-${OSC_NAME_SHOWN}`);
  });
});
