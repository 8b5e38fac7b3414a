/**
 * The scripts `docextract completion <shell>` prints. Each carries, as shell
 * data, what completion-table.ts read from the Commander program (commands,
 * flags, what each value takes) and the state folder's default, so a Tab runs
 * no process: only the document types are read at Tab time, from the plain
 * list the CLI keeps in the state folder (COMPLETION_TYPES_FILE). The price:
 * after an upgrade that adds a command or a flag, the script is printed again
 * (a `source <(docextract completion bash)` in ~/.bashrc does that itself).
 */
import { COMPLETION_TYPES_FILE, JOURNAL_FILE } from '../../config/state-dir.js';
import { shellQuote } from '../../util/shell-quote.js';
import { BASH_FUNCTIONS } from './bash-functions.js';
import type { CommandRow, CompletionTable } from './completion-table.js';
import { FISH_FUNCTIONS } from './fish-functions.js';
import { ZSH_FUNCTIONS } from './zsh-functions.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** What the scripts need besides the program: the state folder the CLI would use when DOCEXTRACT_STATE_DIR is not set. */
export interface ScriptSettings {
  defaultStateDir: string;
  /** The config folder the CLI would use when DOCEXTRACT_CONFIG_DIR is not set: `--profile` offers the profiles of its config.json. */
  defaultConfigDir: string;
}

export function completionScript(shell: Shell, table: CompletionTable, settings: ScriptSettings): string {
  return SCRIPTS[shell](table, settings);
}

const SCRIPTS: Record<Shell, (table: CompletionTable, settings: ScriptSettings) => string> = {
  bash: (table, settings) =>
    [
      '# docextract completion for bash. Tab starts no process: the commands and flags are below.',
      '# Load it now:      source <(docextract completion bash)',
      '# Or for good:      docextract completion bash > ~/.local/share/bash-completion/completions/docextract',
      '#                   (then again after an upgrade of docextract)',
      ...posixScalars(table, settings).map(([name, value]) => `${name}=${shellQuote(value)}`),
      ...Object.entries(posixTables(table, false)).map(
        ([name, entries]) => `declare -gA ${name}=(${entries.map(([key, value]) => `[${shellQuote(key)}]=${shellQuote(value)}`).join(' ')})`,
      ),
      BASH_FUNCTIONS,
    ].join('\n'),
  zsh: (table, settings) =>
    [
      '#compdef docextract',
      '# docextract completion for zsh. Tab starts no process: the commands and flags are below.',
      '# Load it now:      source <(docextract completion zsh)    (after compinit)',
      '# Or for good:      docextract completion zsh > "${fpath[1]}/_docextract"   (then again after an upgrade of docextract)',
      ...posixScalars(table, settings).map(([name, value]) => `typeset -g ${name}=${shellQuote(value)}`),
      ...Object.entries(posixTables(table, true)).flatMap(([name, entries]) => [
        `typeset -gA ${name}`,
        `${name}=(${entries.map(([key, value]) => `${shellQuote(key)} ${shellQuote(value)}`).join(' ')})`,
      ]),
      ZSH_FUNCTIONS,
      'if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then',
      '  _docextract "$@"',
      'else',
      '  compdef _docextract docextract',
      'fi',
      '',
    ].join('\n'),
  fish: fishScript,
};

/** The state folder's default, the names of the document types file and of the journal, and the setting names (one word each). */
function posixScalars(table: CompletionTable, settings: ScriptSettings): [string, string][] {
  return [
    ['_docextract_state_dir', settings.defaultStateDir],
    ['_docextract_config_dir', settings.defaultConfigDir],
    ['_docextract_types_file', COMPLETION_TYPES_FILE],
    ['_docextract_journal_file', JOURNAL_FILE],
    ['_docextract_settings', table.settings.map((setting) => setting.value).join(' ')],
  ];
}

/**
 * Associative arrays keyed by command path (`docextract config set`), or by path and word (`docextract extract --model`);
 * lists are words joined by spaces (no command, flag or kind holds one: a choice list is joined by commas).
 */
function posixTables(table: CompletionTable, withDescriptions: boolean): Record<string, [string, string][]> {
  const each = (row: (command: CommandRow) => [string, string][]): [string, string][] => table.commands.flatMap(row);
  const tables: Record<string, [string, string][]> = {
    _docextract_subcommands: each((c) => (c.subcommands.length > 0 ? [[c.path, c.subcommands.map((s) => s.value).join(' ')]] : [])),
    _docextract_enters: each((c) => Object.entries(c.enters).map(([word, path]) => [`${c.path} ${word}`, path])),
    _docextract_flags: each((c) => [[c.path, c.flags.map((f) => f.value).join(' ')]]),
    _docextract_kinds: each((c) => Object.entries(c.valueKinds).map(([flag, kind]) => [`${c.path} ${flag}`, kind])),
    _docextract_args: each((c) => (c.args.length > 0 ? [[c.path, argsWord(c)]] : [])),
    _docextract_setting_kinds: Object.entries(table.settingValueKinds),
  };
  if (withDescriptions) {
    // Keyed as the zsh functions look them up: `<path> <subcommand or flag>`, and `setting <key>`.
    tables._docextract_descriptions = [
      ...each((c) => [...c.subcommands, ...c.flags].filter((x) => x.description).map((x) => [`${c.path} ${x.value}`, oneLine(x.description ?? '')])),
      ...table.settings.filter((s) => s.description).map((s): [string, string] => [`setting ${s.value}`, oneLine(s.description ?? '')]),
    ];
  }
  return tables;
}

/** The kinds of a command's arguments, in order; the last one marked `...` when it takes any number of words. */
function argsWord(command: CommandRow): string {
  return command.args.map((kind, at) => (command.variadic && at === command.args.length - 1 ? `${kind}...` : kind)).join(' ');
}

/** Fish has no associative arrays: each command is numbered (its place in __docextract_paths) and has lists of its own. */
function fishScript(table: CompletionTable, settings: ScriptSettings): string {
  const number = new Map(table.commands.map((command, at) => [command.path, at + 1]));
  const set = (name: string, values: readonly string[]): string => `set -g ${name}${values.map((value) => ` ${fishQuote(value)}`).join('')}`;
  const lines = [
    '# docextract completion for fish. Tab starts no process: the commands and flags are below.',
    '# Load it now:      docextract completion fish | source',
    '# Or for good:      docextract completion fish > ~/.config/fish/completions/docextract.fish   (then again after an upgrade)',
    set('__docextract_state_dir', [settings.defaultStateDir]),
    set('__docextract_config_dir', [settings.defaultConfigDir]),
    set('__docextract_types_file', [COMPLETION_TYPES_FILE]),
    set('__docextract_journal_file', [JOURNAL_FILE]),
    set(
      '__docextract_settings',
      table.settings.map((s) => s.value),
    ),
    set(
      '__docextract_setting_descriptions',
      table.settings.map((s) => oneLine(s.description ?? '')),
    ),
    set('__docextract_setting_keys', Object.keys(table.settingValueKinds)),
    set('__docextract_setting_kinds', Object.values(table.settingValueKinds)),
  ];
  for (const command of table.commands) {
    const at = number.get(command.path) as number;
    const enters = Object.entries(command.enters);
    const kinds = Object.entries(command.valueKinds);
    lines.push(
      set(
        `__docextract_subcommands_${at}`,
        command.subcommands.map((s) => s.value),
      ),
      set(
        `__docextract_subcommand_descriptions_${at}`,
        command.subcommands.map((s) => oneLine(s.description ?? '')),
      ),
      set(
        `__docextract_enter_words_${at}`,
        enters.map(([word]) => word),
      ),
      set(
        `__docextract_enter_paths_${at}`,
        enters.map(([, path]) => String(number.get(path))),
      ),
      set(
        `__docextract_flags_${at}`,
        command.flags.map((f) => f.value),
      ),
      set(
        `__docextract_flag_descriptions_${at}`,
        command.flags.map((f) => oneLine(f.description ?? '')),
      ),
      set(
        `__docextract_kind_flags_${at}`,
        kinds.map(([flag]) => flag),
      ),
      set(
        `__docextract_kinds_${at}`,
        kinds.map(([, kind]) => kind),
      ),
      set(`__docextract_args_${at}`, argsWord(command).split(' ').filter(Boolean)),
    );
  }
  return [...lines, FISH_FUNCTIONS].join('\n');
}

/** A fish single-quoted word: inside it only `\\` and `\'` are escapes. */
function fishQuote(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** A description as zsh and fish show it: on one line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
