/**
 * Which pages of a document to extract: `all`, or 1-based pages and ranges
 * separated by commas, where a negative number counts from the end (`-1` is
 * the last page). `1`, `1-3,7`, `1,-1`, `-3--1`. Parsed once, before
 * anything is sent; resolved against each document's page count.
 */
export type PageSelection = { all: true } | { all: false; text: string; parts: readonly SelectionPart[] };

/** One comma-separated part: a page (`from === to`) or a range; negative numbers count from the end. */
interface SelectionPart {
  from: number;
  to: number;
}

export const ALL_PAGES: PageSelection = { all: true };

const PAGE = '-?[1-9]\\d*';
const PART = new RegExp(`^(${PAGE})(?:-(${PAGE}))?$`);

/** Parse a selection; throws with a message naming the bad part (a usage error for the CLI). */
export function parsePageSelection(text: string): PageSelection {
  const trimmed = text.trim();
  if (trimmed.toLowerCase() === 'all') return ALL_PAGES;
  if (trimmed === '') throw new Error('empty page selection; give pages such as 1, 1-3,7, 1,-1 or all');
  const parts = trimmed.split(',').map((raw) => {
    const match = PART.exec(raw.replace(/\s+/g, ''));
    if (!match) throw new Error(`"${raw.trim()}" in "${trimmed}" is not a page or a range; pages are 1-based (1, 1-3, -1 for the last page)`);
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    // Two numbers of the same sign must run forwards; a mixed range (2--1) depends on the document.
    if (Math.sign(from) === Math.sign(to) && to < from) throw new Error(`the range "${raw.trim()}" runs backwards; write it as ${to}-${from}`);
    if (from < 0 && to > 0)
      throw new Error(
        `the range "${raw.trim()}" starts from the end and ends from the start; write both ends from the same side, or the start first (2--1: page 2 to the last)`,
      );
    return { from, to };
  });
  return { all: false, text: parts.map(partText).join(','), parts };
}

export type ResolvedSelection =
  { ok: true; pages: number[] } | { ok: false; pageCount: number; /** Says which page or range the document lacks. */ problem: string };

/**
 * The source pages a selection names in a document of `pageCount` pages:
 * ascending, each once (the order the pages are sent in). A page the
 * document lacks (40 of 6, or -7 of 6) is reported, never dropped.
 */
export function resolvePageSelection(selection: PageSelection, pageCount: number): ResolvedSelection {
  if (selection.all) return { ok: true, pages: range(1, pageCount) };
  const pages = new Set<number>();
  for (const part of selection.parts) {
    const from = absolute(part.from, pageCount);
    const to = absolute(part.to, pageCount);
    for (const [page, asked] of [
      [from, part.from],
      [to, part.to],
    ] as const) {
      if (page < 1 || page > pageCount) return { ok: false, pageCount, problem: `page ${asked} is not in it` };
    }
    if (to < from) return { ok: false, pageCount, problem: `the range ${partText(part)} is empty in it (page ${from} to page ${to})` };
    for (let page = from; page <= to; page += 1) pages.add(page);
  }
  return { ok: true, pages: [...pages].sort((a, b) => a - b) };
}

/** Whether `pages` is every page of a document of `pageCount` pages, in order: the whole document. */
export function isWholeDocument(pages: readonly number[], pageCount: number): boolean {
  return pages.length === pageCount && pages.every((page, index) => page === index + 1);
}

/** Pages as a person reads them, in any order and with repeats: [7, 1, 2, 3] -> "1-3, 7" (151 missing pages are "1-151", never 151 numbers). */
export function pageRanges(pages: readonly number[]): string {
  return formatPages([...new Set(pages)].sort((a, b) => a - b)).replaceAll(',', ', ');
}

/** Pages as the shortest selection text: [1, 2, 3, 7] -> "1-3,7". */
export function formatPages(pages: readonly number[]): string {
  const runs: string[] = [];
  let start = pages[0];
  for (let index = 0; start !== undefined && index < pages.length; index += 1) {
    const page = pages[index] as number;
    const next = pages[index + 1];
    if (next === page + 1) continue;
    runs.push(start === page ? String(page) : `${start}-${page}`);
    start = next;
  }
  return runs.join(',');
}

function absolute(page: number, pageCount: number): number {
  return page < 0 ? pageCount + 1 + page : page;
}

function range(first: number, last: number): number[] {
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, index) => first + index);
}

function partText(part: SelectionPart): string {
  return part.from === part.to ? String(part.from) : `${part.from}-${part.to}`;
}
