/**
 * Start-up (issue 30, item 3): bin/ answers `docextract --help` and every other help request from the
 * texts the build rendered (dist/cli/help-texts.json), without loading commander or the CLI. What it
 * prints must be what the CLI prints, byte for byte, for every command and subcommand; and when it
 * cannot be sure (another terminal width, an argv it does not know, texts older than the CLI) it
 * must print nothing and let the CLI run.
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { closeSync, constants, cpSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { renderHelpTexts, type HelpTexts } from '../../../src/cli/help-texts.js';
import { helpRequests, main } from '../../../src/cli/main.js';
import { systemClock } from '../../../src/util/clock.js';
import { isolatedEnv, runCli } from '../../helpers/run-cli.js';

interface FakeStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
  written: string;
}
type AnswerHelp = (args: string[], streams: { stdout: FakeStream; stderr: FakeStream }, dist: string) => number | undefined;

const root = resolve(import.meta.dirname, '../../..');
const { answerHelp, builtKey } = createRequire(import.meta.url)(join(root, 'bin/help-answers.cjs')) as {
  answerHelp: AnswerHelp;
  builtKey: (dist: string) => string;
};
const dist = join(root, 'dist');

function stream(terminal?: { columns: number }): FakeStream {
  const fake: FakeStream = { write: (text) => (fake.written += text), written: '', ...(terminal ? { isTTY: true, columns: terminal.columns } : {}) };
  return fake;
}

/** The help requests of the source's own program (the commands as src/ defines them now). */
function requestsOfSource(): string[][] {
  const quiet = { write: () => true };
  return helpRequests({ io: { stdout: quiet, stderr: quiet, stdin: Readable.from([]), env: {}, cwd: root }, clock: systemClock, args: [] });
}

describe('help answered from the texts the build rendered', () => {
  it('covers every command and subcommand, and the texts in dist/ are the ones the source renders now', async () => {
    const requests = requestsOfSource().map((args) => args.join(' '));
    for (const request of ['', '--help', '-h', 'help', 'extract --help', 'help watch', 'config', 'config set --help', 'config help list', 'completion -h']) {
      expect(requests).toContain(request);
    }
    // A command whose option was added (or changed) without a build fails here.
    const { builtFrom, ...built } = JSON.parse(readFileSync(join(dist, 'cli/help-texts.json'), 'utf8')) as HelpTexts & { builtFrom: string };
    expect(built).toEqual(await renderHelpTexts());
    // Keyed by the content of the build they were rendered from.
    expect(builtFrom).toBe(builtKey(dist));
  });

  it('prints for every help request exactly what the CLI prints, on the same stream, with the same exit code', async () => {
    const env = isolatedEnv();
    const requests = requestsOfSource();
    expect(requests.length).toBeGreaterThan(60);
    for (const args of requests) {
      const streams = { stdout: stream(), stderr: stream() };
      const code = answerHelp(args, streams, dist);
      const cli = await runCli(args, { env });
      expect({ code, stdout: streams.stdout.written, stderr: streams.stderr.written }, `docextract ${args.join(' ')}`).toEqual(cli);
    }
  });

  it('on a terminal, answers only at the width the texts were wrapped to', async () => {
    const wide = { stdout: stream({ columns: 120 }), stderr: stream() };
    expect(answerHelp(['extract', '--help'], wide, dist)).toBeUndefined();
    expect(wide.stdout.written).toBe('');
    // No arguments: the help goes to stderr, so stderr's width is the one that counts.
    expect(answerHelp([], wide, dist)).toBe(2);
    expect(wide.stderr.written).toBe((await runCli([], { env: isolatedEnv() })).stderr);
    const eighty = { stdout: stream({ columns: 80 }), stderr: stream() };
    expect(answerHelp(['extract', '--help'], eighty, dist)).toBe(0);
    expect(eighty.stdout.written).toBe((await runCli(['extract', '--help'], { env: isolatedEnv() })).stdout);
  });

  it('leaves to the CLI what is not a help request, or not exactly one it knows', () => {
    for (const args of [
      ['nope'],
      ['help', 'nope'],
      ['extract', 'a.pdf'],
      ['--json', '--help'],
      ['extract --help'],
      ['config', 'list'],
      ['__complete', '--help'],
    ]) {
      const streams = { stdout: stream(), stderr: stream() };
      expect(answerHelp(args, streams, dist), args.join(' ')).toBeUndefined();
      expect(streams.stdout.written + streams.stderr.written).toBe('');
    }
    expect(answerHelp(['--help'], { stdout: stream(), stderr: stream() }, join(root, 'no-such-dist'))).toBeUndefined();
  });

  it('reads the built modules (to know the texts are theirs) only for a help request, not before every command', () => {
    // A fresh copy of bin/help-answers.cjs, bound to a spied readdirSync (it takes node:fs's functions as it loads).
    const load = createRequire(import.meta.url);
    const fs = load('node:fs') as typeof import('node:fs');
    const path = load.resolve(join(root, 'bin/help-answers.cjs'));
    const listed = vi.spyOn(fs, 'readdirSync');
    try {
      delete load.cache[path];
      const fresh = (load(path) as { answerHelp: AnswerHelp }).answerHelp;
      expect(fresh(['extract', 'a.pdf'], { stdout: stream(), stderr: stream() }, dist)).toBeUndefined();
      expect(listed).not.toHaveBeenCalled();
      expect(fresh(['extract', '--help'], { stdout: stream(), stderr: stream() }, dist)).toBe(0);
      expect(listed).toHaveBeenCalled();
    } finally {
      listed.mockRestore();
      delete load.cache[path];
    }
  });
});

describe('help in the package as npm installs it (bin/, dist/, package.json: no tsc project)', () => {
  it('answers from the texts without reading the build: prepack built dist/ once, texts included (issue 53)', () => {
    const installed = mkdtempSync(join(tmpdir(), 'docextract-installed-'));
    try {
      cpSync(join(root, 'bin'), join(installed, 'bin'), { recursive: true });
      cpSync(join(root, 'package.json'), join(installed, 'package.json'));
      cpSync(dist, join(installed, 'dist'), { recursive: true });
      // A fresh copy of bin/help-answers.cjs, bound to spied node:fs functions (it takes them as it loads).
      const load = createRequire(import.meta.url);
      const fs = load('node:fs') as typeof import('node:fs');
      const path = load.resolve(join(installed, 'bin/help-answers.cjs'));
      const listed = vi.spyOn(fs, 'readdirSync');
      const read = vi.spyOn(fs, 'readFileSync');
      try {
        const fresh = (load(path) as { answerHelp: AnswerHelp }).answerHelp;
        read.mockClear(); // loading the module read its own file
        const streams = { stdout: stream(), stderr: stream() };
        expect(fresh(['extract', '--help'], streams, join(installed, 'dist'))).toBe(0);
        expect(streams.stdout.written).toContain('Usage: docextract extract');
        expect(listed).not.toHaveBeenCalled();
        expect(read.mock.calls.map(([file]) => String(file))).toEqual([join(installed, 'dist/cli/help-texts.json')]);
      } finally {
        listed.mockRestore();
        read.mockRestore();
        delete load.cache[path];
      }
    } finally {
      rmSync(installed, { recursive: true, force: true });
    }
  });
});

describe('bin/docextract.cjs', () => {
  const checkouts: string[] = [];
  /** bin/ and package.json with the built help texts and the built start, and `mainJs` in place of the CLI (dist/cli/main.js). */
  function checkoutWith(mainJs: string): { checkout: string; run: (args: string[]) => SpawnSyncReturns<string> } {
    const checkout = mkdtempSync(join(tmpdir(), 'docextract-bin-'));
    checkouts.push(checkout);
    cpSync(join(root, 'bin'), join(checkout, 'bin'), { recursive: true });
    cpSync(join(root, 'package.json'), join(checkout, 'package.json'));
    // A checkout: tsc's project is there, so dist/ may be re-emitted without the texts (the package has none).
    cpSync(join(root, 'tsconfig.build.json'), join(checkout, 'tsconfig.build.json'));
    mkdirSync(join(checkout, 'dist/cli'), { recursive: true });
    writeFileSync(join(checkout, 'dist/cli/main.js'), mainJs);
    // The one start of the CLI (src/cli/start.ts), as built: bin/ runs main through it.
    cpSync(join(dist, 'cli/start.js'), join(checkout, 'dist/cli/start.js'));
    // The real texts, keyed as the build keys them: by this checkout's built CLI.
    const helpTexts = JSON.parse(readFileSync(join(dist, 'cli/help-texts.json'), 'utf8')) as object;
    writeFileSync(join(checkout, 'dist/cli/help-texts.json'), JSON.stringify({ ...helpTexts, builtFrom: builtKey(join(checkout, 'dist')) }));
    return {
      checkout,
      run: (args) => spawnSync(process.execPath, [join(checkout, 'bin/docextract.cjs'), ...args], { encoding: 'utf8', env: isolatedEnv(), cwd: checkout }),
    };
  }
  // A CLI that cannot load: whatever the checkout prints, it printed without the CLI.
  // It exports `main`, as the CLI does, so that start.js links to it and the throw is what loading it does.
  const unloadable = "export const main = async () => 0;\nthrow new Error('the full CLI was loaded');\n";
  afterAll(() => {
    for (const checkout of checkouts) rmSync(checkout, { recursive: true, force: true });
  });

  it("answers --help, a command's help and no arguments without loading the CLI", async () => {
    const { run } = checkoutWith(unloadable);
    for (const args of [['--help'], ['config', 'set', '-h'], []]) {
      const child = run(args);
      const cli = await runCli(args, { env: isolatedEnv() });
      expect({ code: child.status, stdout: child.stdout, stderr: child.stderr }, `docextract ${args.join(' ')}`).toEqual(cli);
    }
  });

  it('ends quietly, as the CLI does, when the reader of its stdout has already gone (docextract --help | head)', () => {
    const { checkout } = checkoutWith(unloadable);
    // A pipe with no reader left: a FIFO opened for reading, then for writing, then the reading end closed.
    const fifo = join(checkout, 'closed-pipe');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, 'w');
    closeSync(reader);
    try {
      for (const args of [['--help'], ['--version']]) {
        const child = spawnSync(process.execPath, [join(checkout, 'bin/docextract.cjs'), ...args], {
          stdio: ['ignore', writer, 'pipe'],
          encoding: 'utf8',
          env: isolatedEnv(),
        });
        expect(child.stderr, args.join(' ')).toBe('');
        expect(child.status, args.join(' ')).toBe(0);
      }
    } finally {
      closeSync(writer);
    }
  });

  it('runs the CLI for anything else, and for help once any built file changed after its texts (whatever the file times say)', () => {
    const { checkout, run } = checkoutWith(unloadable);
    expect(run(['nope']).stderr).toContain('the full CLI was loaded');
    // A file time alone changes nothing: npm pack gives every file one time.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(checkout, 'dist/cli/main.js'), later, later);
    expect(run(['--help']).stdout).toContain('Usage: docextract');
    // `tsc --watch` re-emits only what changed, say one module the help is made from, and may leave it older than the texts.
    const flags = join(checkout, 'dist/cli/batch-flags.js');
    writeFileSync(flags, "export const changed = 'an option was added';\n");
    const earlier = new Date(Date.now() - 3_600_000);
    utimesSync(flags, earlier, earlier);
    const stale = run(['--help']);
    expect(stale.stderr).toContain('the full CLI was loaded');
    expect(stale.stdout).toBe('');
  });

  it('ends with exit 13 and says so when the CLI never settles, as an unsettled top-level await would', () => {
    const never = checkoutWith('export const main = () => new Promise(() => {});\n').run(['config', 'list']);
    expect(never.status).toBe(13);
    expect(never.stderr).toContain('(internal_error, exit 13)');
    const settles = checkoutWith('export const main = async () => 4;\n').run(['config', 'list']);
    expect({ code: settles.status, stderr: settles.stderr }).toEqual({ code: 4, stderr: '' });
  });
});

describe('the width help is wrapped to', () => {
  async function helpOn(terminal: { columns: number } | undefined): Promise<string> {
    const stdout = stream(terminal);
    const quiet = stream();
    const io = { stdout, stderr: quiet, stdin: Readable.from([]), env: {}, cwd: root };
    expect(await main(['node', 'docextract', 'extract', '--help'], { io, clock: systemClock })).toBe(0);
    return stdout.written;
  }

  it("is the injected terminal's, and 80 off a terminal whatever the process's own stdout (so the build renders the same texts from any terminal)", async () => {
    const offTerminal = await helpOn(undefined);
    const wide = await helpOn({ columns: 120 });
    expect(wide).not.toBe(offTerminal);
    expect(await helpOn({ columns: 100 })).not.toBe(wide);
    expect(await helpOn({ columns: 80 })).toBe(offTerminal);
  });
});
