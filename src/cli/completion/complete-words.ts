import type { Argument, Command, Option } from 'commander';
import type { ModelEntry } from '../../api/index.js';
import { STORED_SETTINGS } from '../../config/settings.js';

/** One word the shell may offer, with what it means (zsh and fish show it). */
export interface Candidate {
  value: string;
  description?: string;
}

/**
 * What the shell adds to the candidates: file or folder names (of the part of
 * the word after `prefix`), or nothing; `nospace`: the word is not finished
 * (`invoice=` waits for its file).
 */
type Directive = 'none' | 'files' | 'dirs' | 'nospace';

export interface Completion {
  candidates: Candidate[];
  directive: Directive;
  /** For files and dirs: the start of the word that is not part of the path (`--out=`, `invoice=`). */
  prefix: string;
}

/** What completion may read: the document types kept for the account that the line's own global flags select. */
export interface CompletionSources {
  documentTypes(lineGlobals: Readonly<Record<string, string>>): Promise<readonly ModelEntry[]>;
  /** The ids of the jobs the journal holds open (not finalized, not expired), read from the state folder: never a request. */
  openJobs(lineGlobals: Readonly<Record<string, string>>): Promise<readonly string[]>;
  /** The profiles of the config file, `default` first. */
  profiles(): readonly string[];
}

/** How a value is completed. Found from the Commander program, so a flag added later is completed without an edit here. */
export type ValueKind =
  | 'none'
  | 'files'
  | 'dirs'
  | 'open-job'
  | 'profile'
  | 'document-type'
  | 'model-rule'
  | 'model-rules'
  | 'type=file'
  | 'types=files'
  | 'setting'
  | { choices: readonly string[] };

/** By the name of an option's value or of an argument (`--out <dir>`, `<results-dir>`). */
const KIND_BY_PLACEHOLDER: Record<string, ValueKind> = {
  dir: 'dirs',
  folder: 'dirs',
  'results-dir': 'dirs',
  'tables-dir': 'dirs',
  parent_job_id: 'open-job',
  file: 'files',
  inputs: 'files',
  'type=file': 'type=file',
  key: 'setting',
};

/** `--model` takes a document type or GLOB=TYPE, whatever its value is called; `--api-key <key>` is a secret, not a setting's key; `--profile` a profile's name. */
const KIND_BY_OPTION: Record<string, ValueKind> = { '--model': 'model-rule', '--api-key': 'none', '--profile': 'profile' };

/** The value of `config set <key> <value>`, by key. */
export const KIND_BY_SETTING: Record<string, ValueKind> = { model: 'document-type', models: 'model-rules', out: 'dirs', schemas: 'types=files' };

const NOTHING: Completion = { candidates: [], directive: 'none', prefix: '' };

/**
 * The completion of the last of `words` (what follows the program's name, up
 * to the cursor) against the Commander program: subcommands, the flags of the
 * command and its parents, and values by what each flag or argument takes.
 */
export async function completeWords(program: Command, words: readonly string[], sources: CompletionSources): Promise<Completion> {
  const current = words[words.length - 1] ?? '';
  const line = readLine(program, words.slice(0, -1));
  const values = (kind: ValueKind, word: string, prefix = ''): Promise<Completion> =>
    completeValue(kind, word, prefix, {
      documentTypes: () => sources.documentTypes(line.globals),
      openJobs: () => sources.openJobs(line.globals),
      profiles: () => sources.profiles(),
    });
  if (line.pendingOption) return values(optionKind(line.pendingOption), current);
  if (!line.afterDashes && current.startsWith('-')) {
    const equals = current.indexOf('=');
    if (current.startsWith('--') && equals > 0) {
      const option = findOption(line.command, current.slice(0, equals));
      return option && takesValue(option) ? values(optionKind(option), current.slice(equals + 1), current.slice(0, equals + 1)) : NOTHING;
    }
    return { candidates: flagsOf(line.command).filter((flag) => flag.value.startsWith(current)), directive: 'none', prefix: '' };
  }
  const subcommands = line.command.createHelp().visibleCommands(line.command);
  if (subcommands.length > 0 && line.positionals.length === 0) {
    return {
      candidates: subcommands.map((sub) => ({ value: sub.name(), description: sub.description() })).filter((c) => c.value.startsWith(current)),
      directive: 'none',
      prefix: '',
    };
  }
  const argument = argumentAt(line.command, line.positionals.length);
  if (!argument) return NOTHING;
  const setting = argument.name() === 'value' ? line.positionals[0] : undefined;
  return values(setting !== undefined ? (KIND_BY_SETTING[setting] ?? 'none') : argumentKind(argument), current);
}

interface ReadLine {
  command: Command;
  positionals: string[];
  /** An option that takes a value was the last word: the current word is its value. */
  pendingOption?: Option;
  afterDashes: boolean;
  /** Values of the program's own options in the line (--base-url, --api-key, --profile...), by attribute name. */
  globals: Record<string, string>;
}

/** Walk the words before the current one as Commander would: subcommands, options and their values, positionals. */
function readLine(program: Command, words: readonly string[]): ReadLine {
  const line: ReadLine = { command: program, positionals: [], afterDashes: false, globals: {} };
  const record = (option: Option, value: string): void => {
    if (program.options.includes(option)) line.globals[option.attributeName()] = value;
  };
  for (const word of words) {
    if (line.pendingOption) {
      record(line.pendingOption, word);
      line.pendingOption = undefined;
    } else if (line.afterDashes || word === '-' || !word.startsWith('-')) {
      const sub =
        line.positionals.length === 0 && !line.afterDashes ? line.command.commands.find((c) => c.name() === word || c.aliases().includes(word)) : undefined;
      if (sub) line.command = sub;
      else line.positionals.push(word);
    } else if (word === '--') {
      line.afterDashes = true;
    } else {
      const equals = word.indexOf('=');
      const option = findOption(line.command, word.startsWith('--') && equals > 0 ? word.slice(0, equals) : word);
      if (option && takesValue(option)) {
        if (word.startsWith('--') && equals > 0) record(option, word.slice(equals + 1));
        else line.pendingOption = option;
      }
    }
  }
  return line;
}

/** The option of the command or of one of its parents (global options apply everywhere). */
function findOption(command: Command, flag: string): Option | undefined {
  for (let at: Command | null = command; at; at = at.parent) {
    const option = at.options.find((o) => o.long === flag || o.short === flag);
    if (option) return option;
  }
  return undefined;
}

export function takesValue(option: Option): boolean {
  return option.required || option.optional;
}

/** Long flags of the command and its parents, the command's own first; hidden ones left out. */
export function flagsOf(command: Command): Candidate[] {
  const seen = new Set<string>();
  const flags: Candidate[] = [];
  for (let at: Command | null = command; at; at = at.parent) {
    for (const option of at.createHelp().visibleOptions(at)) {
      if (!option.long || seen.has(option.long)) continue;
      if (at !== command && (option.long === '--help' || option.long === '--version')) continue;
      seen.add(option.long);
      flags.push({ value: option.long, description: option.description });
    }
  }
  return flags;
}

function argumentAt(command: Command, index: number): Argument | undefined {
  const args = command.registeredArguments;
  const last = args[args.length - 1];
  return args[index] ?? (last?.variadic ? last : undefined);
}

export function optionKind(option: Option): ValueKind {
  if (option.argChoices) return { choices: option.argChoices };
  return (option.long && KIND_BY_OPTION[option.long]) || KIND_BY_PLACEHOLDER[placeholderOf(option.flags)] || 'none';
}

export function argumentKind(argument: Argument): ValueKind {
  if (argument.argChoices) return { choices: argument.argChoices };
  return KIND_BY_PLACEHOLDER[argument.name()] ?? 'none';
}

/** `--schema <type=file>` -> `type=file`. */
function placeholderOf(flags: string): string {
  return /[<[]([^>\]]+)[>\]]/.exec(flags)?.[1]?.replace(/\.\.\.$/, '') ?? '';
}

async function completeValue(
  kind: ValueKind,
  word: string,
  prefix: string,
  {
    documentTypes,
    openJobs,
    profiles,
  }: { documentTypes: () => Promise<readonly ModelEntry[]>; openJobs: () => Promise<readonly string[]>; profiles: () => readonly string[] },
): Promise<Completion> {
  const offer = (candidates: Candidate[], directive: Directive = 'none'): Completion => ({
    candidates: candidates.filter((c) => c.value.startsWith(prefix + word)),
    directive,
    prefix: '',
  });
  const types = async (before: string, after = ''): Promise<Candidate[]> =>
    (await documentTypes()).map((type) => ({
      value: `${prefix}${before}${type.name}${after}`,
      ...(type.description ? { description: type.description } : {}),
    }));
  if (typeof kind === 'object') return offer(kind.choices.map((value) => ({ value: prefix + value })));
  switch (kind) {
    case 'files':
    case 'dirs':
      return { candidates: [], directive: kind, prefix };
    case 'open-job':
      return offer((await openJobs()).map((id) => ({ value: prefix + id })));
    case 'profile':
      return offer(profiles().map((name) => ({ value: prefix + name })));
    case 'setting':
      return offer(STORED_SETTINGS.map((setting) => ({ value: prefix + setting.key, description: setting.help })));
    case 'document-type':
      return offer(await types(''));
    case 'model-rule':
    case 'model-rules': {
      // GLOB=TYPE: the glob is the user's; what follows its `=` is a document type (after the last `;` of a list).
      const start = Math.max(word.lastIndexOf('='), kind === 'model-rules' ? word.lastIndexOf(';') : -1) + 1;
      return offer(await types(word.slice(0, start)));
    }
    case 'type=file':
    case 'types=files': {
      const start = kind === 'types=files' ? word.lastIndexOf(';') + 1 : 0;
      const equals = word.indexOf('=', start);
      if (equals >= 0) return { candidates: [], directive: 'files', prefix: prefix + word.slice(0, equals + 1) };
      return { ...offer(await types(word.slice(0, start), '=')), directive: 'nospace' };
    }
    default:
      return NOTHING;
  }
}
