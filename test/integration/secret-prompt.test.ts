/**
 * `config set api-key` on a terminal: a hidden prompt read in raw mode. The
 * terminal is a fake TTY stream (isTTY, setRawMode, data events) handed to
 * main() in place of stdin; each keystroke is sent only once the prompt is up.
 */
import { existsSync, readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';
const PROMPT = 'API key (input hidden): ';

class FakeTerminal extends PassThrough {
  readonly isTTY = true;
  readonly rawModes: boolean[] = [];
  setRawMode(mode: boolean): this {
    this.rawModes.push(mode);
    return this;
  }
}

interface PromptRun {
  code: number;
  stdout: string;
  stderr: string;
  rawModes: boolean[];
}

/** `docextract config set api-key` with `keystrokes` typed, one data event each, after the prompt appears. */
async function typeAtPrompt(env: NodeJS.ProcessEnv, keystrokes: string[], flags: string[] = []): Promise<PromptRun> {
  const terminal = new FakeTerminal();
  let stdout = '';
  let stderr = '';
  let promptShown!: () => void;
  const prompted = new Promise<void>((resolve) => (promptShown = resolve));
  const io: CliIO = {
    stdout: { write: (chunk: string) => (stdout += chunk), isTTY: true },
    stderr: {
      write: (chunk: string) => {
        stderr += chunk;
        if (stderr.endsWith(PROMPT)) promptShown();
      },
      isTTY: true,
    },
    stdin: terminal,
    env,
    cwd: process.cwd(),
  };
  const running = main(['node', 'docextract', ...flags, 'config', 'set', 'api-key'], { io });
  await prompted;
  for (const keystroke of keystrokes) terminal.write(keystroke);
  const code = await running;
  return { code, stdout, stderr, rawModes: terminal.rawModes };
}

async function storedKey(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const path = (await runCli(['config', 'path'], { env })).stdout.trim();
  if (!existsSync(path)) return undefined;
  return (JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>)['api-key'];
}

describe('config set api-key on a terminal', () => {
  it('hides what is typed, honours backspace, and stores exactly the key', async () => {
    const env = isolatedEnv();
    // A typo corrected with two backspaces (DEL, then BS), pasted halves, and Enter.
    const run = await typeAtPrompt(env, ['sk_0123', 'xy', '\u007f', '\b', '456789abcdef', '0123456789abcdef', '\r']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(new RegExp(`^${PROMPT.replace(/[()]/g, '\\$&')}\\napi-key = sk_…cdef \\(saved to .+config\\.json\\)\\n$`));
    expect(run.stderr).not.toContain('0123456789');
    expect(run.rawModes).toEqual([true, false]);
    expect(await storedKey(env)).toBe(KEY);
  });

  it('Ctrl-C exits 130 like every other interrupt: nothing is stored, raw mode is left, and the key typed so far is not shown', async () => {
    const env = isolatedEnv();
    const run = await typeAtPrompt(env, ['sk_0123456789', '\u0003']);
    expect(run.code).toBe(130);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`${PROMPT}\nerror: interrupted at the key prompt; nothing was saved. (interrupted)\n`);
    expect(run.rawModes).toEqual([true, false]);
    expect(await storedKey(env)).toBeUndefined();
  });

  it('Ctrl-C under --json exits 130 with the interrupt as a JSON error on stderr', async () => {
    const env = isolatedEnv();
    const run = await typeAtPrompt(env, ['sk_01', '\u0003'], ['--json']);
    expect(run.code).toBe(130);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`${PROMPT}\n${JSON.stringify({ error: { code: 'interrupted', message: 'interrupted at the key prompt; nothing was saved.' } })}\n`);
    expect(await storedKey(env)).toBeUndefined();
  });

  it('a malformed key typed at the prompt is refused and not stored', async () => {
    const env = isolatedEnv();
    const run = await typeAtPrompt(env, ['sk_nothex', '\r']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('32 hexadecimal');
    expect(await storedKey(env)).toBeUndefined();
  });
});
