import type { Command } from 'commander';
import { STORED_SETTINGS } from '../../config/settings.js';
import { argumentKind, flagsOf, KIND_BY_SETTING, optionKind, takesValue, type Candidate, type ValueKind } from './complete-words.js';

/**
 * What a completion script needs to know of the program, read from the
 * Commander program when `docextract completion <shell>` runs: the scripts
 * carry it as shell data, so a Tab starts no process, and a flag added to a
 * command is completed without an edit anywhere else.
 *
 * A value kind is a word the scripts switch on: `files`, `dirs`,
 * `document-type`, `model-rule`, `model-rules`, `type=file`, `types=files`,
 * `setting`, `setting-value` (the value of the setting named by the first
 * argument), `none`, or `choices:a,b,c`.
 */
export interface CompletionTable {
  commands: CommandRow[];
  /** The stored settings, for `config set|get|unset <key>`. */
  settings: Candidate[];
  /** How the value of `config set <key> <value>` is completed, by key. */
  settingValueKinds: Record<string, string>;
}

export interface CommandRow {
  /** The program's name and the subcommand names down to this one: `docextract config set`. */
  path: string;
  /** The visible subcommands, offered. */
  subcommands: Candidate[];
  /** Every word that enters a subcommand (names, aliases, hidden ones too, as Commander reads them) and the path it enters. */
  enters: Record<string, string>;
  /** The long flags of this command and its parents that are offered (help shows them). */
  flags: Candidate[];
  /** Every flag (long or short, of this command or a parent) that takes a value: how that value is completed. */
  valueKinds: Record<string, string>;
  /** How each positional argument is completed, in order. */
  args: string[];
  /** The last argument takes any number of words. */
  variadic: boolean;
}

export function completionTable(program: Command): CompletionTable {
  const commands: CommandRow[] = [];
  const visit = (command: Command, path: string): void => {
    const children = command.commands.map((child) => ({ child, path: `${path} ${child.name()}` }));
    const visible = command.createHelp().visibleCommands(command); // with Commander's own `help` where it adds one
    const args = command.registeredArguments;
    commands.push({
      path,
      subcommands: visible.map((child) => ({ value: child.name(), description: child.description() })),
      enters: Object.fromEntries(children.flatMap(({ child, path: childPath }) => [child.name(), ...child.aliases()].map((word) => [word, childPath]))),
      flags: flagsOf(command),
      valueKinds: valueKindsOf(command),
      args: args.map((argument) => (argument.name() === 'value' ? 'setting-value' : kindWord(argumentKind(argument)))),
      variadic: args[args.length - 1]?.variadic ?? false,
    });
    for (const { child, path: childPath } of children) visit(child, childPath);
  };
  visit(program, program.name());
  return {
    commands,
    settings: STORED_SETTINGS.map((setting) => ({ value: setting.key, description: setting.help })),
    settingValueKinds: { ...KIND_BY_SETTING } as Record<string, string>,
  };
}

/** The command's own options first: a parent's flag of the same name is shadowed, as Commander reads it. */
function valueKindsOf(command: Command): Record<string, string> {
  const kinds: Record<string, string> = {};
  const seen = new Set<string>();
  for (let at: Command | null = command; at; at = at.parent) {
    for (const option of at.options) {
      for (const flag of [option.long, option.short]) {
        if (!flag || seen.has(flag)) continue;
        seen.add(flag);
        if (takesValue(option)) kinds[flag] = kindWord(optionKind(option));
      }
    }
  }
  return kinds;
}

function kindWord(kind: ValueKind): string {
  return typeof kind === 'object' ? `choices:${kind.choices.join(',')}` : kind;
}
