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
