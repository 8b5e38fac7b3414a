import { findTemplate, type Template } from '../templates.js';
import { familyGenerator, type PageRecord } from './families.js';
import { pageFingerprint, SeededValues } from './seeded.js';

export type { PageRecord } from './families.js';

function requireTemplate(name: string): Template {
  const template = findTemplate(name);
  if (template === undefined) throw new RangeError(`unknown template ${name}`);
  return template;
}

function docValues(sha256: string, template: Template): SeededValues {
  return new SeededValues(`${sha256}:${template.name}`);
}

/**
 * The synthetic extraction of the given pages. No AI: every value derives
 * from the file's sha256, the template and the page number, so the same file
 * always gives the same data and each page is traceable to its file.
 */
export function extractPages(sha256: string, templateName: string, pageNumbers: readonly number[]): PageRecord[] {
  const template = requireTemplate(templateName);
  const generator = familyGenerator(template);
  return pageNumbers.map((pageNumber) => ({
    page: pageNumber,
    fingerprint: pageFingerprint(sha256, pageNumber),
    ...generator.page(docValues(sha256, template), new SeededValues(`${sha256}:${template.name}:${pageNumber}`), pageNumber),
  }));
}

/**
 * The stable envelope every result shares: `{document_type, source_sha256,
 * page_count, pages, ...summary}`. `pages` holds the pages present, in page
 * order; `page_count` is the document's total. `templateName` null (nothing
 * extracted yet) gives `document_type: null` and no summary.
 */
export function documentData(sha256: string, templateName: string | null, pageCount: number, pages: readonly PageRecord[]): Record<string, unknown> {
  const ordered = [...pages].sort((a, b) => a.page - b.page);
  const template = templateName === null ? undefined : requireTemplate(templateName);
  const summary = template === undefined ? {} : familyGenerator(template).summary(docValues(sha256, template), ordered);
  const numberField = template === undefined ? {} : { [template.numberField]: docValues(sha256, template).digits(8) };
  return {
    document_type: template?.name ?? null,
    source_sha256: sha256,
    page_count: pageCount,
    ...numberField,
    ...summary,
    pages: ordered,
  };
}
