import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOCEXTRACT_BIN } from './child-run.js';

export type ShellName = 'bash' | 'zsh' | 'fish';

/**
 * Each shell, started interactive in a terminal (util-linux `script` gives it
 * a pty), with the script `docextract completion <shell>` prints loaded as the
 * README says, a plain prompt, and Ctrl-X Ctrl-P bound to print the line being
 * edited between markers, then empty it: what a Tab did is read back from the shell itself.
 */
const SET_UP: Record<ShellName, { command: (rc: string) => string; rc: string }> = {
  bash: {
    command: (rc) => `bash --noprofile --rcfile ${rc} -i`,
    rc: `PS1='PROMPT> '
source <(docextract completion bash)
bind -x '"\\C-x\\C-p": printf "LINE<%s>\\n" "$READLINE_LINE"; READLINE_LINE=; READLINE_POINT=0'
echo READY`,
  },
  zsh: {
    command: () => 'zsh --no-globalrcs -i', // reads $ZDOTDIR/.zshrc
    rc: `PS1='PROMPT> '
autoload -U compinit; compinit -u -d "$HOME/.zcompdump"
source <(docextract completion zsh)
print-line() { zle -I; print -r -- "LINE<$BUFFER>"; BUFFER= }
zle -N print-line; bindkey '^X^P' print-line
echo READY`,
  },
  fish: {
    command: (rc) => `fish --no-config -C 'source ${rc}' -i`,
    rc: `function fish_prompt; echo -n 'PROMPT> '; end
docextract completion fish | source
bind \\cx\\cp 'echo "LINE<"(commandline)">"; commandline ""'
echo READY`,
  },
};

// eslint-disable-next-line no-control-regex -- the terminal's escape sequences (colours, cursor moves) are what this strips
const ESCAPE_SEQUENCES = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** An interactive shell whose line editor is typed into; every wait is on text the shell printed. */
export class ShellSession {
  private output = '';
  private readonly waiters = new Set<() => void>();

  private constructor(
    readonly shell: ShellName,
    private readonly child: ChildProcess,
    private readonly startsLog: string,
  ) {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.output += chunk;
      for (const wake of this.waiters) wake();
    });
  }

  /** `docextract` on PATH runs the built CLI (dist) with `env`; the shell's own rc files are not read. */
  static async start(shell: ShellName, env: NodeJS.ProcessEnv, cwd: string): Promise<ShellSession> {
    const dir = mkdtempSync(join(tmpdir(), `docextract-${shell}-`));
    const rc = join(dir, shell === 'zsh' ? '.zshrc' : 'rc');
    writeFileSync(rc, `${SET_UP[shell].rc}\n`);
    // Each start of `docextract` or of a `node` found on PATH is written down: a Tab must start neither.
    const starts = join(dir, 'starts.log');
    const wrapper = join(dir, 'docextract');
    writeFileSync(wrapper, `#!/bin/sh\necho "docextract $*" >> '${starts}'\nexec '${process.execPath}' '${DOCEXTRACT_BIN}' "$@"\n`);
    writeFileSync(join(dir, 'node'), `#!/bin/sh\necho "node $*" >> '${starts}'\nexec '${process.execPath}' "$@"\n`);
    for (const stub of [wrapper, join(dir, 'node')]) chmodSync(stub, 0o755);
    const child = spawn('script', ['-q', '-e', '-c', SET_UP[shell].command(rc), '/dev/null'], {
      env: {
        ...env,
        PATH: `${dir}:${env.PATH ?? ''}`,
        HOME: env.HOME ?? dir,
        TERM: 'xterm',
        SHELL: shell,
        COLUMNS: '200',
        LINES: '50',
        fish_greeting: '',
        ZDOTDIR: dir,
      },
      cwd,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const session = new ShellSession(shell, child, starts);
    await session.waitFor(/READY[\s\S]*PROMPT> /);
    return session;
  }

  /** Type `text` then Tab(s) into an empty line, and return the line as the shell then holds it. */
  async complete(text: string, tabs = 1): Promise<string> {
    const from = this.output.length;
    this.type(`${text}${'\t'.repeat(tabs)}\x18\x10`);
    const match = await this.waitFor(/LINE<([^>\r\n]*)>/, from);
    return match[1] as string;
  }

  /** The commands `docextract` and `node` the shell has started so far (the one that printed the script among them). */
  started(): string[] {
    return existsSync(this.startsLog) ? readFileSync(this.startsLog, 'utf8').split('\n').filter(Boolean) : [];
  }

  /** Everything the shell printed from `from` on (a listing after two Tabs, say). */
  printedSince(from: number): string {
    return this.output.slice(from);
  }

  get printed(): number {
    return this.output.length;
  }

  type(keys: string): void {
    this.child.stdin?.write(keys);
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.child.once('close', () => resolve()));
    this.type('exit\n');
    this.child.stdin?.end();
    await closed;
  }

  /** Resolves once the output from `from` on matches; the test's own timeout bounds the wait. */
  waitFor(pattern: RegExp, from = 0): Promise<RegExpMatchArray> {
    return new Promise((resolve) => {
      const check = (): void => {
        const match = this.output.slice(from).replace(ESCAPE_SEQUENCES, '').match(pattern);
        if (!match) return;
        this.waiters.delete(check);
        resolve(match);
      };
      this.waiters.add(check);
      check();
    });
  }
}

/** Whether `shell` is installed here (zsh and fish are Debian packages that .ci/run installs). */
export function hasShell(shell: ShellName): boolean {
  return spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
}
