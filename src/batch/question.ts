/**
 * What a result answers: this content, read with this template, stored or
 * not. A result is reused only for the same question, and the same question
 * is paid for once.
 */
export interface Question {
  /** sha256 of the file's bytes, hex: the content, whatever its name or place. */
  sha256: string;
  /** As the service reads it: lowercased and trimmed; the service's default when none was sent. */
  model: string;
  /** Whether the result was stored server-side: a stored and an unstored result answer different questions. */
  store_db: boolean;
  /** The source's pages sent, ascending, when not all of them were (--pages); absent: the whole document. */
  pages?: number[];
}

/** The service's template when a request names none (spec §2.1). */
export const SERVICE_DEFAULT_MODEL = 'invoice';

/** A template name as the service reads it: lowercased and trimmed (spec §2.1). */
export function normaliseModel(name: string): string {
  return name.trim().toLowerCase();
}

export function questionOf(sha256: string, model: string | null | undefined, storeDb: boolean, pages?: readonly number[] | null): Question {
  return { sha256, model: model ? normaliseModel(model) : SERVICE_DEFAULT_MODEL, store_db: storeDb, ...(pages ? { pages: [...pages] } : {}) };
}

/** One string per question, for maps and indexes. */
export function questionKey(question: Question): string {
  return `${question.sha256}:${question.model}:${question.store_db ? 'stored' : 'unstored'}${pagesKey(question.pages)}`;
}

/** The selection part of a key: '' for the whole document, so keys of whole documents are what they always were. */
export function pagesKey(pages: readonly number[] | undefined): string {
  return pages ? `:p${pages.join(',')}` : '';
}

/** Whether two questions ask for the same pages (both the whole document, or the same selection). */
export function samePages(a: readonly number[] | undefined, b: readonly number[] | undefined): boolean {
  return pagesKey(a) === pagesKey(b);
}
