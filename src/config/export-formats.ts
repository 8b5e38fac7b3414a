/**
 * The formats `export` writes: the one list, which `--format` offers and
 * checks (and completion offers). A module of its own, with no imports: the
 * CLI reads it when it registers its commands, before any export code loads.
 */
export const EXPORT_FORMATS = ['csv', 'xlsx', 'ndjson'] as const;

/** One of EXPORT_FORMATS: `csv` (a file per table), `xlsx` (a workbook, a sheet per table) or `ndjson` (one flat object per document). */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
