/** A chunk's page range as the manifest writes it, `<first>-<last>` (or one page), or undefined when it is not one. */
export function parsePageRange(range: string):
  | {
      /** The first page, 1-based. */
      first: number;
      /** The last page, inclusive; equal to `first` for a single page. */
      last: number;
    }
  | undefined {
  const match = /^\s*(\d+)\s*(?:-\s*(\d+))?\s*$/.exec(range);
  if (!match?.[1]) return undefined;
  const first = Number(match[1]);
  const last = match[2] ? Number(match[2]) : first;
  return first >= 1 && last >= first ? { first, last } : undefined;
}
