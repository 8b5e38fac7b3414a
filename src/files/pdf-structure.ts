import { PdfObjectStore } from './pdf/object-store.js';
import type { InspectionBudget } from './pdf/inspection-budget.js';

/**
 * The structure check before pdf-lib reads a file (to cut it, or to count
 * what our counter could not): pdf-lib inflates every object stream of the
 * file as it loads it, with no limit of its own. Here each is inflated once,
 * within `budget`, which throws InspectionBudgetExceeded past it; pdf-lib is
 * then never given the file.
 */
export function checkPdfStructure(bytes: Uint8Array, budget: InspectionBudget): void {
  // The scan decodes every object stream it finds, as pdf-lib's parser does, whatever the cross-reference data says.
  new PdfObjectStore(bytes, undefined, budget).scanIndex();
}
