import type { Command } from 'commander';
import { accountId } from '../../config/account-id.js';
import { configDirectory, readStoredConfig } from '../../config/config-store.js';
import { profileNames } from '../../config/profiles.js';
import { defaultStateDir } from '../../config/state-dir.js';
import { readModelNames } from '../../library/models.js';
import { UsageError } from '../cli-errors.js';
import type { CommandHandler } from '../command.js';
import { completeWords, type Completion } from '../completion/complete-words.js';
import { completionTable } from '../completion/completion-table.js';
import { completionScript, SHELLS, type Shell } from '../completion/shell-scripts.js';
import { readlineWord } from '../completion/readline-word.js';
import { splitCommandLine } from '../completion/split-line.js';
import { CliContext, type GlobalOptions } from '../context.js';
import { cliClient } from '../engine-access.js';
import { renderUntrusted } from '../../util/untrusted-text.js';
import { shellQuote } from '../../util/shell-quote.js';

/**
 * `docextract completion <shell>`: the script, with the program's commands and flags in it (so a Tab starts no process)
 * and the state folder the CLI would use without DOCEXTRACT_STATE_DIR (the script honours that variable at Tab time).
 */
export function completionScriptFor(program: Command): CommandHandler<[string]> {
  return async (ctx, shell) => {
    const defaultDir = defaultStateDir({ ...ctx.io.env, DOCEXTRACT_STATE_DIR: undefined });
    const defaultConfigDir = configDirectory({ ...ctx.io.env, DOCEXTRACT_CONFIG_DIR: undefined });
    ctx.io.stdout.write(completionScript(knownShell(shell), completionTable(program), { defaultStateDir: defaultDir, defaultConfigDir }));
  };
}

/**
 * One Tab of a script printed before completion ran in the shell (scripts saved by an earlier version call
 * `docextract __complete`): kept so that they go on working until printed again. bash passes the line up to the cursor and its word-break
 * characters; zsh and fish pass the words, the current one last. Reads the
 * program and the state folder only: never a request, never a lock.
 */
export function completeFor(program: Command): CommandHandler<[string, string[]]> {
  return async (ctx, shell, args) => {
    const which = knownShell(shell);
    const [line = '', wordBreaks = ''] = args;
    const words = which === 'bash' ? splitCommandLine(line).words : args;
    const completion = await completeWords(program, words.slice(1), {
      documentTypes: (globals) => documentTypesFor(ctx, globals),
      openJobs: (globals) => openJobsFor(ctx, globals),
      profiles: () => profilesFor(ctx),
    });
    ctx.io.stdout.write(which === 'bash' ? forBash(completion, words[words.length - 1] ?? '', readlineWord(line, wordBreaks)) : forZshOrFish(completion));
  };
}

/**
 * The document types kept for the account the completed line would use: its own --base-url, --api-key or other global flags first.
 * A name the service sent with a control or bidi character in it is not offered: the shell would put it into the command line raw
 * (a newline in it would even offer a second, made-up name), and shown escaped it would not be the name. Nor is a name that
 * a shell would not read as the one plain word it is (`x;rm -rf ~`, `$(…)`): completion inserts it unquoted, one Enter from running.
 */
async function documentTypesFor(ctx: CliContext, globals: Readonly<Record<string, string>>): Promise<ReturnType<typeof readModelNames>> {
  const line = new CliContext(ctx.deps, { ...ctx.options, ...globals } as GlobalOptions);
  try {
    return readModelNames(line.stateDir(), accountId(await line.baseUrl(), (await line.apiKey()).key)).filter(
      (type) => renderUntrusted(type.name) === type.name && shellQuote(type.name) === type.name,
    );
  } catch {
    return []; // no key, no base URL: nothing kept to offer
  }
}

/** The profiles of the config file; none when it cannot be read (completion never fails). */
function profilesFor(ctx: CliContext): string[] {
  try {
    return profileNames(readStoredConfig(ctx.io.env));
  } catch {
    return [];
  }
}

/** The jobs `jobs` lists as open for the line's account (its own global flags first), from the journal: no request, no lock. */
async function openJobsFor(ctx: CliContext, globals: Readonly<Record<string, string>>): Promise<string[]> {
  const line = new CliContext(ctx.deps, { ...ctx.options, ...globals } as GlobalOptions);
  try {
    const { jobs } = await (await cliClient(line, {}, false, { readsRecords: true })).jobs();
    return jobs.filter((job) => job.state !== 'expired').map((job) => job.parent_job_id);
  } catch {
    return []; // no key, an unsafe state folder: nothing to offer, and completion never fails
  }
}

/**
 * Readline replaces only the text after the last word-break character (`=`
 * and `:` among them), so `--model=inv` is completed as `inv`: each candidate
 * loses what comes before it. Bash shows no descriptions.
 */
function forBash(completion: Completion, word: string, replaced: string): string {
  const cut = word.endsWith(replaced) ? word.length - replaced.length : 0;
  const lines = completion.candidates.map((candidate) => candidate.value.slice(cut));
  const path = completion.prefix.length <= word.length ? word.slice(completion.prefix.length) : '';
  return [...lines, `:${completion.directive}\t${completion.directive === 'files' || completion.directive === 'dirs' ? path : ''}`].join('\n') + '\n';
}

function forZshOrFish(completion: Completion): string {
  const lines = completion.candidates.map((candidate) => (candidate.description ? `${candidate.value}\t${oneLine(candidate.description)}` : candidate.value));
  return [...lines, `:${completion.directive}\t${completion.prefix}`].join('\n') + '\n';
}

/** A description as zsh and fish show it: on one line, its other controls (the service's words) rendered. */
function oneLine(text: string): string {
  return renderUntrusted(text.replace(/\s+/g, ' '));
}

function knownShell(shell: string): Shell {
  if ((SHELLS as readonly string[]).includes(shell)) return shell as Shell;
  throw new UsageError(`unknown shell "${shell}"; docextract completes ${SHELLS.join(', ')}`, 'unknown_shell');
}
