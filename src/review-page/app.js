// @ts-check
/**
 * The page's main script: the list of documents with its filters, a
 * document beside its fields (or, for one without a result, beside why it
 * got none), drafts kept per document, saving and approving, and the keys
 * (keys.js). Every rule (a document's status, a field's path and type, the
 * times' words) is the server's: this draws what it sends.
 */
import { applyDraft, changeCount, clearDraft, draftedIds, draftOf, recordInput } from './drafts.js';
import { markRefused, refusalOf, renderForm } from './form.js';
import { focusedSlot, landOnFirstProblem, move, slots } from './focus.js';
import { bindKeys } from './keys.js';
import { baseName, button, failure, viewerTools } from './pane.js';
import { idInUrl, onPlaceChange, placeInUrl } from './place.js';
import { renderSource, setZoom } from './viewer.js';

/** @typedef {import('../review/review-model.js').DocumentSummary} DocumentSummary */
/** @typedef {import('../review/review-model.js').DocumentView} DocumentView */
/** @typedef {import('../review/review-model.js').FailedDocumentView} FailedDocumentView */
/** @typedef {import('../review/review-values.js').RefusedValue} RefusedValue */

/** @type {DocumentSummary[]} */
let all = [];
/** @type {DocumentSummary[]} */
let shown = [];
/** @type {DocumentView | FailedDocumentView | null} */
let current = null;
let opened = 0;

/** @param {string} id */
function $(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element;
}
const typeFilter = /** @type {HTMLSelectElement} */ ($('filter-type'));
const statusFilter = /** @type {HTMLSelectElement} */ ($('filter-status'));

/** @param {string} text */
function say(text) {
  $('status').textContent = text;
}

/** @param {unknown} error */
function sayError(error) {
  say(error instanceof Error ? error.message : String(error));
}

class NotFoundError extends Error {}

class RefusedError extends Error {
  /** @param {RefusedValue[]} refused */
  constructor(refused) {
    super(`Not saved: ${refused.map((value) => `${value.path} ${value.message}`).join('; ')}`);
    this.refused = refused;
  }
}

/**
 * @param {string} path
 * @param {RequestInit} [init]
 */
async function api(path, init) {
  const response = await fetch(path, init);
  if (response.status === 422) throw new RefusedError((await response.json()).refused);
  if (response.status === 404) throw new NotFoundError(`${path}: 404`);
  if (!response.ok) throw new Error(`${path}: ${response.status} ${messageOf((await response.text()).trim())}`);
  return response.json();
}

/**
 * The words of a refusal the server explains (a result changed in the bucket since it was read), else its text.
 * @param {string} text
 */
function messageOf(text) {
  try {
    const message = JSON.parse(text).message;
    return typeof message === 'string' ? message : text;
  } catch {
    return text;
  }
}

async function loadList() {
  const answer = await api('api/documents');
  all = answer.documents;
  $('folder').textContent = answer.folder;
  const chosen = typeFilter.value;
  typeFilter.length = 1;
  for (const type of [...new Set(all.map((doc) => doc.type).filter(Boolean))].sort()) typeFilter.add(new Option(type, type));
  typeFilter.value = chosen;
  renderList();
}

function renderList() {
  const type = typeFilter.value;
  const status = statusFilter.value;
  shown = all.filter((doc) => {
    if (type && doc.type !== type) return false;
    if (status === 'reviewed') return doc.reviewed;
    if (status === 'unreviewed') return !doc.reviewed;
    return !status || doc.review_status === status;
  });
  const list = $('documents');
  list.textContent = '';
  for (const doc of shown) {
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.id = doc.id;
    button.setAttribute('aria-current', String(current !== null && doc.id === current.id));
    const name = document.createElement('span');
    name.className = 'name';
    name.textContent = baseName(doc.source);
    button.appendChild(name);
    const apart = apartOf(doc);
    if (apart) {
      const scope = document.createElement('span');
      scope.className = 'scope';
      scope.textContent = apart;
      button.appendChild(scope);
    }
    badge(button, doc.review_status, doc.status_label);
    if (doc.type) badge(button, '', doc.type);
    if (doc.reviewed) badge(button, 'reviewed', doc.approved ? 'approved' : 'corrected');
    const changes = changeCount(doc.id);
    if (changes > 0) badge(button, 'unsaved', `${changes} unsaved`);
    button.addEventListener('click', () => void open(doc.id).catch(sayError));
    list.appendChild(document.createElement('li')).appendChild(button);
  }
  $('count').textContent = `${shown.length} of ${all.length} documents`;
}

/**
 * What tells a document apart from others listed under the same name: the
 * pages or parts of its source's results, or where the file is.
 * @param {DocumentSummary} doc
 */
function apartOf(doc) {
  if (all.some((other) => other !== doc && other.source === doc.source)) return doc.scope;
  const name = baseName(doc.source);
  if (all.some((other) => other !== doc && baseName(other.source) === name)) return doc.source.slice(0, doc.source.length - name.length);
  return '';
}

/**
 * @param {HTMLElement} parent
 * @param {string} kind
 * @param {string} text
 */
function badge(parent, kind, text) {
  const span = document.createElement('span');
  span.className = `badge ${kind}`;
  span.textContent = text;
  parent.appendChild(span);
}

/**
 * Opens a document and names it in the URL; `land` puts the focus on its
 * first field with a problem (j, k); `how`: a new history entry (the person
 * moved to it) or in place (a reload, the back button).
 * @param {string} id
 * @param {boolean} [land]
 * @param {'push' | 'replace'} [how]
 */
async function open(id, land = false, how = 'push') {
  const ticket = ++opened;
  const view = await api(`api/document?id=${encodeURIComponent(id)}`);
  if (ticket !== opened) return;
  show(view);
  placeInUrl(view.id, how);
  if (land) landOnFirstProblem();
  const viewer = /** @type {HTMLElement} */ (document.querySelector('.viewer'));
  await renderSource(viewer, view, () => ticket === opened);
}

/** @param {DocumentView | FailedDocumentView} view */
function show(view) {
  current = view;
  const pane = $('document-pane');
  let viewer = /** @type {HTMLElement | null} */ (pane.querySelector('.viewer'));
  if (!viewer || viewer.dataset.id !== view.id) {
    pane.textContent = '';
    viewer = document.createElement('div');
    viewer.className = 'viewer';
    viewer.dataset.id = view.id;
    viewer.setAttribute('aria-label', 'the document');
    pane.appendChild(viewerTools());
    pane.appendChild(viewer);
  }
  pane.querySelector('.fields')?.remove();
  const fields = 'form' in view ? formOf(view) : failure(view);
  // The document an action acts on: the one whose fields are on screen.
  fields.dataset.id = view.id;
  pane.appendChild(fields);
  renderList();
}

/** @param {DocumentView} view */
function formOf(view) {
  const form = document.createElement('form');
  form.className = 'fields';
  form.tabIndex = -1;
  form.setAttribute('aria-label', `fields of ${baseName(view.source)}`);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    save(false);
  });
  const title = document.createElement('h2');
  title.textContent = baseName(view.source);
  form.appendChild(title);
  const meta = document.createElement('p');
  meta.className = 'meta';
  meta.textContent = [
    `${view.type} · ${view.scope} · ${view.status}${view.missing_pages.length ? ` (pages ${view.missing_pages_text} missing)` : ''}`,
    view.passed === null ? 'no schema' : view.passed ? 'checks passed' : `${view.problems} problem(s)`,
    ...(view.reviewed ? [`${view.approved ? 'approved' : 'corrected'} ${view.reviewed_at_local}`] : []),
    ...(view.stale_review ? ['a review of an earlier extraction is not applied'] : []),
  ].join(' · ');
  form.appendChild(meta);
  const actions = document.createElement('div');
  actions.className = 'actions';
  // A read-only view (a result in parts, data not shown) has nothing to save or discard: only its approval.
  const editable = isEditable(view);
  if (editable) actions.appendChild(button('Save (Ctrl+S)', 'submit', 'save', ''));
  actions.appendChild(button(view.approved ? 'Approved ✓ (a)' : 'Approve (a)', 'button', 'approve', 'primary')).addEventListener('click', () => save(true));
  if (editable) actions.appendChild(button('Discard (d)', 'button', 'discard', '')).addEventListener('click', discard);
  const unsaved = document.createElement('span');
  unsaved.className = 'unsaved';
  unsaved.setAttribute('aria-live', 'polite');
  actions.appendChild(unsaved);
  form.appendChild(actions);
  renderForm(form, view.form);
  applyDraft(view.id, form);
  showUnsaved(form, view.id);
  form.addEventListener('input', (event) => {
    const input = event.target;
    if (!(input instanceof HTMLInputElement)) return;
    recordInput(view.id, input);
    input.classList.toggle('draft', input.value !== input.dataset.initial);
    markRefused(input, refusalOf(input));
    showUnsaved(form, view.id);
    renderList();
  });
  return form;
}

/** @param {DocumentView} view */
function isEditable(view) {
  return view.form.some((section) => section.editable);
}

/**
 * @param {HTMLElement} form
 * @param {string} id
 */
function showUnsaved(form, id) {
  const count = changeCount(id);
  const unsaved = form.querySelector('.unsaved');
  if (unsaved) unsaved.textContent = count > 0 ? `${count} unsaved change(s)` : '';
}

/** @param {boolean} approve */
async function save(approve) {
  if (!current || !('form' in current)) return;
  const view = current;
  const form = /** @type {HTMLElement | null} */ (document.querySelector('#document-pane .fields'));
  // Only ever the document on screen: its fields carry its id.
  if (!form || form.dataset.id !== view.id) return;
  if (!approve && !isEditable(view)) {
    say(`${baseName(view.source)} is read only here: nothing to save`);
    return;
  }
  const refused = [...form.querySelectorAll('input[data-path]')]
    .map((input) => /** @type {HTMLInputElement} */ (input))
    .filter((input) => refusalOf(input) !== null);
  if (refused.length > 0) {
    refused.forEach((input) => markRefused(input, refusalOf(input)));
    // Into the first refused input, to fix it at once.
    refused[0]?.focus();
    say(`Not saved: ${refused.map((input) => refusalOf(input)).join('; ')}`);
    return;
  }
  // Where the focus was, to put it back there once the fields are drawn again.
  const focusPath = focusedSlot()?.dataset.path;
  const inInput = document.activeElement instanceof HTMLInputElement;
  const values = draftOf(view.id);
  const body = { values, approved: approve ? true : view.approved };
  /** @type {DocumentView} */
  let saved;
  try {
    saved = await api(`api/document?id=${encodeURIComponent(view.id)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (error) {
    if (error instanceof RefusedError) showRefused(error.refused);
    throw error;
  }
  clearDraft(view.id, values);
  // The list keeps its order while the person works through it: a fixed document does not jump away.
  all = all.map((doc) => (doc.id === saved.id ? summaryOf(saved, doc) : doc));
  if (current?.id === saved.id) {
    show(saved);
    const slot = focusPath === undefined ? undefined : slots(false).find((candidate) => candidate.dataset.path === focusPath);
    if (slot && inInput) slot.querySelector('input')?.focus();
    else if (slot) slot.focus();
  } else renderList();
  say(
    `${approve ? 'Approved' : 'Saved'} ${baseName(saved.source)} at ${saved.reviewed_at_local}: ${saved.passed === null ? 'no schema to check' : saved.passed ? 'checks passed' : `${saved.problems} problem(s) left`}`,
  );
}

/** @param {RefusedValue[]} refused */
function showRefused(refused) {
  for (const value of refused) {
    const input = /** @type {HTMLInputElement | null} */ (document.querySelector(`#document-pane input[data-path="${CSS.escape(value.path)}"]`));
    if (input) markRefused(input, `${value.path} ${value.message}: "${value.text}" is not saved`);
  }
  slots(true)
    .find((slot) => slot.classList.contains('refused'))
    ?.querySelector('input')
    ?.focus();
}

/**
 * @param {DocumentView} view
 * @param {DocumentSummary} before
 * @returns {DocumentSummary}
 */
function summaryOf(view, before) {
  const { id, source, scope, type, status, review_status, status_label, passed, problems, reviewed, approved } = view;
  return { ...before, id, source, scope, type, status, review_status, status_label, passed, problems, reviewed, approved };
}

function discard() {
  if (!current || changeCount(current.id) === 0) return;
  const view = current;
  if (!confirm(`Discard ${changeCount(view.id)} unsaved change(s) to ${baseName(view.source)}?`)) return;
  clearDraft(view.id);
  show(view);
  landOnFirstProblem();
  say(`Discarded the unsaved changes to ${baseName(view.source)}`);
}

/** @param {1 | -1} by */
function step(by) {
  if (shown.length === 0) return;
  const index = current ? shown.findIndex((doc) => doc.id === current?.id) : -1;
  const next = shown[Math.min(shown.length - 1, Math.max(0, index + by))];
  if (next && (!current || next.id !== current.id)) void open(next.id, true).catch(sayError);
  else landOnFirstProblem();
}

function toggleHelp() {
  const help = /** @type {HTMLDetailsElement} */ ($('keys'));
  help.open = !help.open;
}

bindKeys({
  step,
  problem: (by) => move(true, by),
  field: (by) => move(false, by),
  save: (approve) => void save(approve).catch(sayError),
  discard,
  zoom: (direction) => void setZoom(direction).catch(sayError),
  help: toggleHelp,
});
// Closing or reloading the tab with unsaved changes asks first (they are also kept for this tab's reload).
window.addEventListener('beforeunload', (event) => {
  if (draftedIds().length === 0) return;
  event.preventDefault();
  event.returnValue = '';
});
typeFilter.addEventListener('change', renderList);
statusFilter.addEventListener('change', renderList);

onPlaceChange((id) => {
  if (id !== undefined && id !== current?.id) void openAsked(id).catch(sayError);
});

/**
 * Opens the document a link (or the back button) names; one the folder does not hold is said, and the first is opened.
 * @param {string} id
 */
async function openAsked(id) {
  try {
    await open(id, true, 'replace');
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    if (current) placeInUrl(current.id, 'replace');
    else if (shown[0]) await open(shown[0].id, true, 'replace');
    say(`The link names ${JSON.stringify(id)}, which is not a document of this folder`);
  }
}

loadList()
  .then(() => {
    const asked = idInUrl();
    if (asked !== undefined) return openAsked(asked);
    return shown[0] ? open(shown[0].id, true, 'replace') : undefined;
  })
  .catch(sayError);
