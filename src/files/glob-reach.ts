/**
 * Whether a glob stays below the folder it starts in (searchedFrom), proved
 * from its text before anything is listed. fast-glob expands braces into
 * several patterns, each with a base of its own, so a check of the first
 * pattern's base does not hold: `{x,..}/*.pdf` starts in `.` and walks
 * `..`, `.{.,}/x` spells `..` only once expanded, `{/etc,x}/*` is absolute,
 * and a range `{+..0}` expands to a `/`. Expanding every pattern to check it
 * can cost millions of strings (`{a,b}` twenty times), so the rule is read
 * from the text instead, conservatively: a glob it cannot prove is refused.
 */

/** Linux's PATH_MAX: no longer pattern names a path, and reading one costs time for nothing. */
const LONGEST_GLOB = 4096;

/** `@(…)`, `!(…)`, `+(…)`, `*(…)`, `?(…)`: picomatch's extglobs, whose groups the rule does not read. */
const EXTGLOB = /[@!+*?]\(/;

/**
 * Why `pattern` could reach outside the folder its text starts in, or
 * undefined when it cannot: refused are an extglob, a brace holding a `/`
 * or a `..` (a range is `{a..b}`), a `..` segment anywhere, and a segment
 * with braces and a `.` that might expand to dots only (nothing outside its
 * braces but `.`, and each group with an alternative of dots only, or
 * nested). A backslash is read as the character it escapes, so it hides
 * neither a `/` nor a `..`.
 */
export function globLeavesItsBase(pattern: string): string | undefined {
  if (pattern.length > LONGEST_GLOB) return `a glob longer than ${LONGEST_GLOB} characters (PATH_MAX) names no path and is not searched`;
  const plain = pattern.replaceAll('\\', '');
  if (EXTGLOB.test(plain)) return 'an extglob group (@(…), !(…), +(…), *(…), ?(…)) is not searched';
  const segments: Segment[] = [];
  let segment = newSegment();
  let depth = 0;
  let group = { text: '', nested: false };
  for (const char of plain) {
    if (char === '/' && depth > 0) return 'a brace holding a "/" may expand to another folder';
    if (char === '/') {
      segments.push(segment);
      segment = newSegment();
      continue;
    }
    segment.text += char;
    if (char === '{') {
      if (depth === 0) group = { text: '', nested: false };
      else group.nested = true;
      depth += 1;
      segment.braces = true;
    } else if (char === '}' && depth > 0) {
      depth -= 1;
      if (depth > 0) continue;
      if (group.text.includes('..')) return PARENT_IN_BRACES;
      // A flat group none of whose alternatives is dots only puts a character other than "." in every expansion.
      if (!group.nested && !group.text.split(',').some((alternative) => /^\.*$/.test(alternative))) segment.notOnlyDots = true;
    } else if (depth > 0) {
      group.text += char;
    } else if (char !== '.') {
      segment.notOnlyDots = true;
    }
  }
  if (depth > 0 && group.text.includes('..')) return PARENT_IN_BRACES;
  segments.push(segment);
  for (const { text, braces, notOnlyDots } of segments) {
    if (text === '..') return 'a ".." segment leads to a parent folder';
    if (braces && text.includes('.') && !notOnlyDots) return 'a segment of braces and dots may expand to ".."';
  }
  return undefined;
}

const PARENT_IN_BRACES = 'a brace holding ".." (a parent folder, or a range) may expand to a parent folder';

interface Segment {
  text: string;
  braces: boolean;
  /** Every expansion of the segment holds a character other than ".": it can never be "..". */
  notOnlyDots: boolean;
}

function newSegment(): Segment {
  return { text: '', braces: false, notOnlyDots: false };
}
