import picomatch from 'picomatch';

/** One `GLOB=VALUE` rule: for files whose path (relative to the inputs' base) matches `glob`. */
export interface PathRule<T> {
  /** As written, relative to the inputs' base, e.g. `ids/**`. */
  glob: string;
  value: T;
  /** Whether a path relative to the inputs' base, with `/` separators, matches `glob`. */
  matches: (relativePath: string) => boolean;
}

/** How one kind of rule (`--model`, `--pages`) reads its values and names itself in errors. */
export interface RuleKind<T> {
  /** Parses a value; throws with a message naming it when it is bad. */
  parse(text: string): T;
  /** The value as the user would write it (to say which two defaults clash). */
  text(value: T): string;
  /** `MODEL`, `SELECTION`: the placeholder in the messages. */
  placeholder: string;
  /** e.g. `ids/**=id_card`. */
  example: string;
}

/**
 * `GLOB=VALUE` rules, first match wins, and at most one bare `VALUE` default:
 * the shape `--model` and `--pages` (and their settings) share. Globs are
 * matched with picomatch, which is what fast-glob itself matches with, so a
 * rule means what the same glob means on the command line. Throws with a
 * message naming the bad entry.
 */
export function parsePathRules<T>(specs: readonly string[], kind: RuleKind<T>): { rules: PathRule<T>[]; fallback: T | undefined } {
  const rules: PathRule<T>[] = [];
  let fallback: T | undefined;
  for (const spec of specs) {
    const equals = spec.lastIndexOf('=');
    if (equals === -1) {
      const value = kind.parse(spec);
      if (fallback !== undefined && kind.text(fallback) !== kind.text(value)) {
        throw new Error(
          `two defaults ("${kind.text(fallback)}" and "${kind.text(value)}"); give one bare ${kind.placeholder}, and GLOB=${kind.placeholder} for the rest`,
        );
      }
      fallback = value;
      continue;
    }
    const glob = spec.slice(0, equals).trim().replace(/^\.\//, '');
    if (!glob) throw new Error(`"${spec}" has no glob before "="; write GLOB=${kind.placeholder}, e.g. '${kind.example}'`);
    if (!spec.slice(equals + 1).trim()) throw new Error(`"${spec}" has nothing after "="; write GLOB=${kind.placeholder}, e.g. '${kind.example}'`);
    rules.push({ glob, value: kind.parse(spec.slice(equals + 1)), matches: picomatch(glob, { dot: true }) });
  }
  return { rules, fallback };
}

/** The value of the first rule matching `relativePath` (either separator), else `fallback`. */
export function firstMatch<T>(rules: readonly PathRule<T>[], relativePath: string): T | undefined {
  const path = relativePath.split('\\').join('/');
  return rules.find((rule) => rule.matches(path))?.value;
}
