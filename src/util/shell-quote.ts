/**
 * Commands the tool suggests for a person to paste (`docextract collect
 * <id>`, the command line `jobs` lists), built from argv words so that a
 * POSIX shell reads back exactly those words: a file name or an id that
 * holds `;`, `$(…)`, a quote or a newline stays one word of data. This is
 * quoting for a shell; escaping untrusted text for display is another
 * function's job.
 *
 * Written here rather than taken from a package: none is a dependency, and
 * the rule is a few lines (POSIX single quotes; `$'…'` for a word with
 * control characters, so no raw control byte reaches the terminal).
 */

/** Characters no POSIX shell reads as syntax, in any position after the command name. */
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Control characters (C0, DEL, C1), format characters (bidi overrides among them) and line or paragraph separators: never printed raw. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\t': '\\t', '\r': '\\r' };

/**
 * One word as a POSIX shell reads it back: bare when it holds only safe
 * characters, else in single quotes (a `'` as `'\''`), else, when it holds
 * a control character, in `$'…'` with each such character escaped (`\n`,
 * or its UTF-8 bytes as `\xHH`). `$'…'` is POSIX.1-2024 and is read by
 * bash, zsh, ksh and busybox sh; dash before 0.5.13 does not read it.
 */
export function shellQuote(word: string): string {
  if (SAFE_WORD.test(word)) return word;
  if (!UNPRINTABLE.test(word)) return `'${word.replaceAll("'", `'\\''`)}'`;
  return `$'${Array.from(word, escapedForDollarQuote).join('')}'`;
}

/** A command to paste, from its words: each quoted (shellQuote) and joined by spaces. */
export function suggestedCommand(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}

function escapedForDollarQuote(char: string): string {
  const named = NAMED_ESCAPES[char];
  if (named !== undefined) return named;
  if (!UNPRINTABLE.test(char)) return char;
  return Array.from(Buffer.from(char, 'utf8'), (byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join('');
}
