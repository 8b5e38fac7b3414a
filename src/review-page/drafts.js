// @ts-check
/**
 * What the person typed and has not saved, per document: kept when they
 * move to another document and back, and across a reload of the tab (in
 * sessionStorage), until it is saved or they discard it. Nothing typed is
 * lost without a word.
 */

/** @typedef {Record<string, string>} Draft texts by dotted path */

const KEY = `docextract-review-drafts:${location.pathname}`;

/** @type {Map<string, Draft>} */
const drafts = new Map(load());

/** @returns {[string, Draft][]} */
function load() {
  try {
    const stored = JSON.parse(sessionStorage.getItem(KEY) ?? '[]');
    return Array.isArray(stored) ? stored : [];
  } catch {
    return [];
  }
}

function store() {
  try {
    sessionStorage.setItem(KEY, JSON.stringify([...drafts]));
  } catch {
    // Storage full or refused: the drafts stay in this page, and beforeunload still asks.
  }
}

/** @param {string} id */
export function draftOf(id) {
  return drafts.get(id) ?? {};
}

/** @param {string} id */
export function changeCount(id) {
  return Object.keys(draftOf(id)).length;
}

/** The documents with unsaved changes. */
export function draftedIds() {
  return [...drafts.keys()];
}

/**
 * Records the text of one input: a change, or (back to what was shown) none.
 * @param {string} id
 * @param {HTMLInputElement} input
 */
export function recordInput(id, input) {
  const path = input.dataset.path ?? '';
  const draft = { ...draftOf(id) };
  if (input.value === input.dataset.initial) delete draft[path];
  else draft[path] = input.value;
  if (Object.keys(draft).length > 0) drafts.set(id, draft);
  else drafts.delete(id);
  store();
}

/**
 * Puts a document's draft back into its freshly drawn inputs.
 * @param {string} id
 * @param {HTMLElement} form
 */
export function applyDraft(id, form) {
  const draft = draftOf(id);
  form.querySelectorAll('input[data-path]').forEach((node) => {
    const input = /** @type {HTMLInputElement} */ (node);
    const path = input.dataset.path ?? '';
    if (!Object.hasOwn(draft, path) || input.readOnly) return;
    input.value = draft[path] ?? '';
    input.classList.add('draft');
  });
}

/**
 * Forgets the draft of a document once saved (the texts sent: one typed
 * since stays), or discarded (all).
 * @param {string} id
 * @param {Draft} [sent]
 */
export function clearDraft(id, sent) {
  if (sent === undefined) drafts.delete(id);
  else {
    const draft = { ...draftOf(id) };
    for (const [path, text] of Object.entries(sent)) if (draft[path] === text) delete draft[path];
    if (Object.keys(draft).length > 0) drafts.set(id, draft);
    else drafts.delete(id);
  }
  store();
}
