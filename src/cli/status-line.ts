/** One part of a status line, and how much it matters (1 first). */
export interface StatusPart {
  text: string;
  priority: number;
}

/**
 * The parts that fit in `room` columns, in their own order, joined by " · ":
 * the least important go first, whole (a line cut mid-word once hid the
 * wait's reason). Nothing is cut inside a part.
 */
export function fitParts(parts: readonly StatusPart[], room: number): string {
  const kept = parts.filter((part) => part.text !== '');
  const width = (chosen: readonly StatusPart[]): number => chosen.reduce((sum, part) => sum + part.text.length, 0) + 3 * Math.max(0, chosen.length - 1);
  while (kept.length > 0 && width(kept) > room) {
    const least = kept.reduce((worst, part) => (part.priority > worst.priority ? part : worst));
    kept.splice(kept.indexOf(least), 1);
  }
  return kept.map((part) => part.text).join(' · ');
}

/** A bar as wide as the terminal allows: 40 columns on a wide one, less on a narrow one. */
export function barWidthFor(columns: number | undefined): number {
  const width = columns ?? 80;
  if (width >= 110) return 40;
  if (width >= 80) return 24;
  return 12;
}

/** An escape sequence (CSI such as a colour, or OSC): kept whole, and no column wide. */
// eslint-disable-next-line no-control-regex -- escape sequences are what this finds
const ESCAPE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\))/gu;
const WIDE =
  /\p{Extended_Pictographic}|[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]/u;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

interface Piece {
  text: string;
  columns: number;
}

/**
 * The columns a grapheme takes on a terminal: 2 for East Asian wide ones and
 * emoji, 0 for a lone combining mark, 1 otherwise. (string-width does this,
 * but only reaches node_modules through ora; it is no dependency of ours.)
 */
function columnsOf(grapheme: string): number {
  if (WIDE.test(grapheme)) return 2;
  return /^\p{M}+$/u.test(grapheme) ? 0 : 1;
}

function piecesOf(text: string): Piece[] {
  const pieces: Piece[] = [];
  let at = 0;
  const plain = (upTo: number): void => {
    for (const { segment } of graphemes.segment(text.slice(at, upTo))) pieces.push({ text: segment, columns: columnsOf(segment) });
  };
  for (const escape of text.matchAll(ESCAPE)) {
    plain(escape.index);
    pieces.push({ text: escape[0], columns: 0 });
    at = escape.index + escape[0].length;
  }
  plain(text.length);
  return pieces;
}

/** The columns `text` takes on a terminal (escape sequences take none). */
export function displayColumns(text: string): number {
  return piecesOf(text).reduce((sum, piece) => sum + piece.columns, 0);
}

/**
 * `text` broken into lines of at most `columns - 1` columns (as a terminal
 * counts them: a colour's escape takes none, a CJK character or an emoji
 * two), at spaces where it can be (a path with none is broken where it must),
 * never inside an escape sequence or a character. Lines logged above redrawn
 * bars must not wrap by themselves: the bars are drawn with the terminal's
 * autowrap off, so a longer line would lose its end, and the redraw counts
 * lines, not rows (per-file lines once lost their output path and collect
 * command that way).
 */
export function wrapToWidth(text: string, columns: number | undefined): string[] {
  const width = Math.max(20, (columns ?? 80) - 1);
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line: Piece[] = [];
    let used = 0;
    let broken = false;
    for (const piece of piecesOf(paragraph)) {
      if (used + piece.columns > width) {
        const space = lastSpace(line, width / 2);
        const rest = space < 0 ? [] : line.slice(space + 1);
        lines.push(joined(space < 0 ? line : line.slice(0, space)).trimEnd());
        line = dropLeadingSpaces(rest);
        used = line.reduce((sum, kept) => sum + kept.columns, 0);
        broken = true;
      }
      // A break replaces the spaces it is made at.
      if (broken && line.length === 0 && piece.text === ' ') continue;
      line.push(piece);
      used += piece.columns;
    }
    lines.push(joined(line));
  }
  return lines;
}

/** The index of the last space in `line` past `minColumns`, or -1 (then the line is cut where it is full). */
function lastSpace(line: readonly Piece[], minColumns: number): number {
  let columns = 0;
  let found = -1;
  for (const [index, piece] of line.entries()) {
    if (piece.text === ' ' && columns > minColumns) found = index;
    columns += piece.columns;
  }
  return found;
}

function dropLeadingSpaces(line: Piece[]): Piece[] {
  const first = line.findIndex((piece) => piece.text !== ' ');
  return first < 0 ? [] : line.slice(first);
}

function joined(line: readonly Piece[]): string {
  return line.map((piece) => piece.text).join('');
}
