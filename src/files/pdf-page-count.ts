/**
 * Counts the pages of a PDF without a PDF library.
 *
 * Why hand-written: the only thing we need is the page count, for up to
 * 10,000 files per run, quickly and in little memory. pdf-lib parses every
 * object of the file into a full object graph (slow and memory-hungry for a
 * 10 MB scan) and cannot read encrypted files whose objects sit in object
 * streams. Here we read the cross-reference data, resolve /Root → /Pages →
 * /Count and touch nothing else.
 *
 * The answer is undefined whenever we cannot be sure (damaged file, page tree
 * inside an encrypted object stream, unsupported stream filter): the caller
 * then sends the file anyway and lets the server judge it.
 *
 * The work is bounded by an InspectionBudget (bytes inflated, time): past it,
 * countPdfPages throws InspectionBudgetExceeded rather than answering
 * undefined, because a file we gave up on is not one we may send blind (see
 * preflight.ts). It runs synchronously; preflight runs it in a worker.
 */
import { readCrossReference } from './pdf/cross-reference.js';
import { InspectionBudget, InspectionBudgetExceeded } from './pdf/inspection-budget.js';
import { PdfObjectStore, streamsAreEncrypted } from './pdf/object-store.js';
import { asDict, asNonNegativeInteger, PdfDict, PdfRef, type PdfValue } from './pdf/syntax.js';
import { SERVICE_LIMITS } from '../api/limits.js';

/** The service's page limit per document (API v3.1 §8, `page_limit_exceeded`). */
export const MAX_PAGES = SERVICE_LIMITS.maxPages;

/** Page-tree nodes visited when a damaged file's pages must be counted one by one. */
const MAX_PAGE_TREE_NODES = 200_000;

export function countPdfPages(bytes: Uint8Array, budget: InspectionBudget = new InspectionBudget()): number | undefined {
  try {
    return countPages(bytes, budget);
  } catch (error) {
    if (error instanceof InspectionBudgetExceeded) throw error;
    // The parsers are written not to throw; this is the promise to callers, not a code path we expect.
    return undefined;
  }
}

function countPages(bytes: Uint8Array, budget: InspectionBudget): number | undefined {
  const xref = readCrossReference(bytes, budget);
  const store = new PdfObjectStore(bytes, xref, budget);
  const encrypt = xref?.trailers.find((trailer) => trailer.get('Encrypt') !== undefined)?.get('Encrypt');
  // Assume the worst until the /Encrypt dictionary (always a direct object) says otherwise. Without
  // readable trailers we cannot tell, so any mention of /Encrypt counts.
  store.streamsEncrypted = encrypt !== undefined || (xref === undefined && mentionsEncryption(bytes));
  if (encrypt !== undefined) store.streamsEncrypted = streamsAreEncrypted(store, encrypt);

  const root = xref?.trailers.find((trailer) => trailer.get('Root') instanceof PdfRef)?.get('Root');
  // Stryker disable next-line ConditionalExpression: equivalent; countFromCatalog of undefined resolves nothing and answers undefined.
  const counted = root === undefined ? undefined : countFromCatalog(store, root);
  if (counted !== undefined || store.neededEncryptedObjectStream) return counted;

  // Repair path: no usable cross-reference data, so work from a scan of the whole file. A damaged
  // file's /Count may promise pages that are gone (a cut-off download), so here every page must be found.
  const scan = store.scanIndex();
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent; as above, and any policy but 'trust' verifies.
  const repaired = scan.root === undefined ? undefined : countFromCatalog(store, scan.root, 'verify');
  // (An encrypted object stream it needed is one the scan could not read either: the last resort declines.)
  if (repaired !== undefined) return repaired;

  // Last resort: the page tree's root is the one /Type /Pages node without a /Parent. An object
  // stream we could not read may hide the real one, and the one in sight is then a stale copy.
  const treeRoots = [...scan.latest].filter(([, definition]) => definition.isPageTreeRoot);
  const [onlyRoot, ...others] = treeRoots;
  // Stryker disable next-line ConditionalExpression: equivalent for the first test; without it onlyRoot[0] throws, and countPdfPages answers undefined.
  if (onlyRoot === undefined || others.length > 0 || scan.unreadObjectStreams) return undefined;
  // Stryker disable next-line StringLiteral: equivalent; any policy but 'trust' verifies.
  return countPageTree(store, asDict(store.getObject(onlyRoot[0])), 'verify');
}

/** 'trust': the file's structure is intact, so /Count is the answer. 'verify': /Count must match the pages found. */
type CountPolicy = 'trust' | 'verify';

function countFromCatalog(store: PdfObjectStore, root: PdfValue, policy: CountPolicy = 'trust'): number | undefined {
  const catalog = asDict(store.resolve(root));
  // Stryker disable next-line ConditionalExpression: equivalent; without it catalog.get throws, and countPdfPages answers undefined.
  if (catalog === undefined) return undefined;
  return countPageTree(store, asDict(store.resolve(catalog.get('Pages'))), policy);
}

function countPageTree(store: PdfObjectStore, pages: PdfDict | undefined, policy: CountPolicy): number | undefined {
  // Stryker disable next-line ConditionalExpression: equivalent; without it pages.nameOf throws, and countPdfPages answers undefined.
  if (pages === undefined) return undefined;
  const type = pages.nameOf('Type');
  if (type !== undefined && type !== 'Pages') return undefined;
  // /Count is required. Without it (or with 0) readers disagree (qpdf says 0, poppler fails), so the server judges.
  const count = asNonNegativeInteger(store.resolve(pages.get('Count')));
  // Stryker disable next-line ConditionalExpression: equivalent for an undefined count; 'trust' returns it as is, and 'verify' returns it (undefined) or a mismatch.
  if (count === undefined || count === 0) return undefined;
  if (policy === 'trust') return count;
  return countLeaves(store, pages) === count ? count : undefined;
}

/** Counts the pages reachable through /Kids; undefined when any node cannot be read. */
function countLeaves(store: PdfObjectStore, root: PdfDict): number | undefined {
  const visited = new Set<number>();
  const stack: PdfDict[] = [root];
  let leaves = 0;
  for (let steps = 0; steps < MAX_PAGE_TREE_NODES; steps++) {
    const node = stack.pop();
    if (node === undefined) return leaves;
    const kids = store.resolve(node.get('Kids'));
    if (!Array.isArray(kids)) {
      if (node.nameOf('Type') === 'Pages') return undefined;
      leaves++;
      continue;
    }
    for (const kid of kids) {
      if (kid instanceof PdfRef) {
        if (visited.has(kid.num)) continue; // a cycle, or a page listed twice
        visited.add(kid.num);
      }
      const child = asDict(store.resolve(kid));
      if (child === undefined) return undefined;
      stack.push(child);
    }
  }
  return undefined;
}

function mentionsEncryption(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes('/Encrypt');
}

/**
 * False when the file has no `obj` and no `xref` anywhere: such a "PDF" is a
 * header and noise (e.g. a download cut off after a few bytes) and can hold
 * no page, so it is safe to reject before spending a request on it.
 */
export function hasPdfBody(bytes: Uint8Array): boolean {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return buffer.includes('obj') || buffer.includes('xref');
}
