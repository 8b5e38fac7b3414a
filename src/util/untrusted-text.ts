/**
 * What a terminal must not receive raw from an untrusted string (a file name,
 * a service's message, a data key, a model name, a job id):
 * - controls (Cc): C0 with \n, \r, \t and ESC (every terminal escape sequence
 *   starts with one: OSC 52 sets the clipboard, OSC 0 the window title,
 *   CSI 2K erases the line), DEL, and C1 (U+0080-U+009F; U+009B is a CSI by
 *   itself on some terminals);
 * - format characters (Cf): the bidi embeddings, overrides and isolates
 *   (U+202A-U+202E, U+2066-U+2069, U+200E/U+200F, U+061C) that show
 *   `fdp.exe` as `exe.pdf`, and the invisible ones (zero-width space, word
 *   joiner, BOM, soft hyphen, tag characters) that hide text in a name;
 * - the line and paragraph separators (Zl, Zp), which some terminals and
 *   editors break lines at;
 * - lone surrogates (Cs), which would reach the terminal as U+FFFD and hide
 *   what was there.
 * Kept: ZWNJ and ZWJ (U+200C, U+200D), which Persian, Indic scripts and
 * emoji need to be written at all.
 */
const UNSAFE = /(?![\u200c\u200d])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
const EACH_UNSAFE = new RegExp(UNSAFE.source, 'gu');

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * An untrusted string as a person may read it on a terminal: each character
 * a terminal would act on, or that would hide or reorder text, is shown as a
 * visible escape, the way `ls` and `git` show such names: `\n`, `\r`, `\t`,
 * `\x1b` (controls up to U+00FF), `\u202e` (others), `\u{e0041}` (beyond
 * U+FFFF). Everything else is kept as it is, so a line of ours stays one line
 * and a name is shown as its owner wrote it.
 *
 * The backslash itself is not escaped, a choice: the result contains nothing
 * this function would change, so rendering twice is rendering once. A line
 * built from values already rendered can be rendered whole again, and a
 * shell-quoted command in a message (`'it'\''s.pdf'`) stays pasteable. The
 * price is that a name holding a real backslash and `x1b` reads like one
 * holding ESC; neither can act on the terminal, and `--json` gives the exact
 * text. (jsesc does this kind of escaping, but is no dependency of ours and
 * escapes the backslash; JSON.stringify and util.inspect quote the string and
 * leave C1 and bidi controls raw.)
 */
export function renderUntrusted(text: string): string {
  // The common case, a plain name, is returned as is.
  if (!UNSAFE.test(text)) return text;
  return text.replace(EACH_UNSAFE, escapeOne);
}

function escapeOne(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.codePointAt(0) ?? 0;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}
