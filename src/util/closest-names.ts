/** Names within a small edit distance (or sharing a prefix), closest first, at most three. */
export function closestNames(name: string, available: readonly string[]): string[] {
  const scored = available
    .map((candidate) => ({ candidate, distance: editDistance(name, candidate.toLowerCase()) }))
    .filter(({ candidate, distance }) => distance <= Math.max(2, Math.floor(name.length / 3)) || candidate.startsWith(name) || name.startsWith(candidate))
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate));
  return scored.slice(0, 3).map(({ candidate }) => candidate);
}

/**
 * Levenshtein distance. Written here rather than taken from a package: a
 * few dozen short names (document types, settings, commands), and ten lines
 * are easier to trust than a dependency.
 */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
