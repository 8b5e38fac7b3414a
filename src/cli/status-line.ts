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

/**
 * `text` broken into lines of at most `columns - 1` characters, at spaces
 * where it can be (a path with none is broken where it must). Lines logged
 * above redrawn bars must not wrap by themselves: the redraw counts lines and
 * would draw over the wrapped rest (per-file lines once lost their output
 * path and collect command that way).
 */
export function wrapToWidth(text: string, columns: number | undefined): string[] {
  const width = Math.max(20, (columns ?? 80) - 1);
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let rest = paragraph;
    while (rest.length > width) {
      const space = rest.lastIndexOf(' ', width);
      const cut = space > width / 2 ? space : width;
      lines.push(rest.slice(0, cut).trimEnd());
      rest = rest.slice(cut).trimStart();
    }
    lines.push(rest);
  }
  return lines;
}
