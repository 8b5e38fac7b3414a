import { readFile } from 'node:fs/promises';
import { SERVICE_LIMITS } from '../api/limits.js';
import type { PreflightOk } from '../files/preflight.js';
import { pastLimits, planParts } from '../files/pdf-parts.js';
import { isWholeDocument, resolvePageSelection, type PageSelection } from '../files/page-selection.js';

/** What a file sends once its selection is applied: the pages sent, and the source's pages when only some are. */
export type SelectedPages =
  | {
      ok: true;
      pages: number | undefined;
      sourcePages?: number[];
      sourcePageCount?: number;
      /** The pages to send, in parts the service accepts, when they are past its limits (more than 150, or a file over 10 MB). */
      parts?: number[][];
    }
  | { ok: false; code: string; message: string; pages: number | null };

/**
 * Apply a page selection to a preflighted file, locally: a page the file
 * lacks, or more pages than one upload may hold, is that file's error, and
 * nothing is sent for it. A selection of every page, in order, is the whole
 * document (the file is sent as it is, and answers the same question). An
 * image is page 1. A PDF our counter could not count is counted by pdf-lib,
 * which must read it anyway to cut it.
 */
export async function selectPages(preflighted: PreflightOk, selection: PageSelection, name: string): Promise<SelectedPages> {
  let checked = preflighted;
  if (checked.type === 'pdf' && checked.pages === undefined && checked.size > SERVICE_LIMITS.maxFileBytes) {
    // Too large to send whole, and uncounted: only pdf-lib's count can say how to cut it.
    const counted = await countUncounted(checked.path, name);
    if (typeof counted !== 'number') return counted;
    checked = { ...checked, pages: counted };
  }
  const selected = await selectedPages(checked, selection, name);
  if (!selected.ok || checked.type !== 'pdf' || selected.pages === undefined) return selected;
  // A cut of a few pages of a large file is small: only the pages' own objects are weighed.
  const why = pastLimits(selected.pages, checked.size);
  if (why === undefined) return selected;
  const pageCount = selected.sourcePageCount ?? selected.pages;
  const pages = selected.sourcePages ?? Array.from({ length: pageCount }, (_, index) => index + 1);
  let planned;
  try {
    planned = await planParts(await readFile(checked.path), pages, pageCount, name, why);
  } catch (error) {
    return {
      ok: false,
      code: 'file_unreadable',
      message: `${name} cannot be read (${error instanceof Error ? error.message : String(error)}).`,
      pages: pageCount,
    };
  }
  if (!planned.ok) return { ...planned, pages: pageCount };
  if (planned.parts.length === 1 && selected.sourcePages) return selected;
  return { ok: true, pages: pages.length, sourcePages: pages, sourcePageCount: pageCount, parts: planned.parts };
}

async function selectedPages(checked: PreflightOk, selection: PageSelection, name: string): Promise<SelectedPages> {
  if (selection.all) return { ok: true, pages: checked.pages };
  const pageCount = checked.type === 'pdf' ? (checked.pages ?? (await countUncounted(checked.path, name))) : 1;
  if (typeof pageCount !== 'number') return pageCount;
  const resolved = resolvePageSelection(selection, pageCount);
  if (!resolved.ok) {
    return {
      ok: false,
      code: 'page_out_of_range',
      message: `${name} has ${pageCount} page${pageCount === 1 ? '' : 's'}; --pages ${selection.text}: ${resolved.problem}. Nothing was sent for it.`,
      pages: pageCount,
    };
  }
  if (isWholeDocument(resolved.pages, pageCount)) return { ok: true, pages: pageCount };
  return { ok: true, pages: resolved.pages.length, sourcePages: resolved.pages, sourcePageCount: pageCount };
}

async function countUncounted(path: string, name: string): Promise<number | Extract<SelectedPages, { ok: false }>> {
  const { countPagesByRewriter } = await import('../files/pdf-cut.js');
  let counted;
  try {
    counted = await countPagesByRewriter(await readFile(path), name);
  } catch (error) {
    return { ok: false, code: 'file_unreadable', message: `${name} cannot be read (${error instanceof Error ? error.message : String(error)}).`, pages: null };
  }
  return counted.ok ? counted.pages : { ...counted, pages: null };
}
