import { readFile } from 'node:fs/promises';
import { SERVICE_LIMITS } from '../api/limits.js';
import type { PreflightOk } from '../files/preflight.js';
import { formatPages, isWholeDocument, resolvePageSelection, type PageSelection } from '../files/page-selection.js';

/** What a file sends once its selection is applied: the pages sent, and the source's pages when only some are. */
export type SelectedPages =
  | { ok: true; pages: number | undefined; sourcePages?: number[]; sourcePageCount?: number }
  | { ok: false; code: string; message: string; pages: number | null };

/**
 * Apply a page selection to a preflighted file, locally: a page the file
 * lacks, or more pages than one upload may hold, is that file's error, and
 * nothing is sent for it. A selection of every page, in order, is the whole
 * document (the file is sent as it is, and answers the same question). An
 * image is page 1. A PDF our counter could not count is counted by pdf-lib,
 * which must read it anyway to cut it.
 */
export async function selectPages(checked: PreflightOk, selection: PageSelection, name: string): Promise<SelectedPages> {
  if (selection.all) return withinPageLimit(checked.pages, name);
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
  if (isWholeDocument(resolved.pages, pageCount)) return withinPageLimit(pageCount, name);
  if (resolved.pages.length > SERVICE_LIMITS.maxPages) {
    return {
      ok: false,
      code: 'page_limit_exceeded',
      message: `${name}: --pages ${selection.text} selects ${resolved.pages.length} pages (${formatPages(resolved.pages)}); the service accepts at most ${SERVICE_LIMITS.maxPages} pages per document.`,
      pages: pageCount,
    };
  }
  return { ok: true, pages: resolved.pages.length, sourcePages: resolved.pages, sourcePageCount: pageCount };
}

/** The whole document is sent: the service's page limit applies to it. */
function withinPageLimit(pages: number | undefined, name: string): SelectedPages {
  if (pages === undefined || pages <= SERVICE_LIMITS.maxPages) return { ok: true, pages };
  return { ok: false, code: 'page_limit_exceeded', message: `${name} has ${pages} pages; the service accepts at most ${SERVICE_LIMITS.maxPages} pages per document.`, pages };
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
