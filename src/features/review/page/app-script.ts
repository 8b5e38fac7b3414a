/**
 * The page's main script (app.js): the list of documents with its filters,
 * a document beside its fields (or, for one without a result, beside why
 * it got none), saving and approving, and the keys
 * (j/k next and previous, Ctrl+S save, a approve).
 */
export const APP_JS = String.raw`
import { renderForm, changedValues } from './form.js';
import { renderSource } from './viewer.js';

var all = [];
var shown = [];
var current = null;
var opened = 0;
var $ = function (id) { return document.getElementById(id); };

function statusOf(doc) { return doc.error ? 'failed' : doc.passed === false ? 'checks-failed' : doc.status === 'partial' ? 'partial' : 'complete'; }
var WORDS = { 'checks-failed': 'checks failed', partial: 'partial', failed: 'failed', complete: 'complete' };
function statusWords(doc) {
  if (doc.error) return doc.status + (doc.error.code ? ' (' + doc.error.code + ')' : '');
  return WORDS[statusOf(doc)] + (doc.problems ? ' (' + doc.problems + ')' : '');
}
function baseName(path) { return path.split(/[\\/]/).pop(); }
function say(text) { $('status').textContent = text; }

async function api(path, init) {
  var response = await fetch(path, init);
  if (!response.ok) throw new Error(path + ': ' + response.status + ' ' + (await response.text()).trim());
  return response.json();
}

async function loadList() {
  var answer = await api('api/documents');
  all = answer.documents;
  $('folder').textContent = answer.folder;
  var select = $('filter-type');
  var chosen = select.value;
  select.length = 1;
  Array.from(new Set(all.map(function (doc) { return doc.type; }).filter(Boolean))).sort().forEach(function (type) { select.add(new Option(type, type)); });
  select.value = chosen;
  renderList();
}

function renderList() {
  var type = $('filter-type').value;
  var status = $('filter-status').value;
  shown = all.filter(function (doc) {
    if (type && doc.type !== type) return false;
    if (status === 'reviewed') return doc.reviewed;
    if (status === 'unreviewed') return !doc.reviewed;
    return !status || statusOf(doc) === status;
  });
  var list = $('documents');
  list.textContent = '';
  shown.forEach(function (doc) {
    var button = document.createElement('button');
    button.type = 'button';
    button.dataset.id = doc.id;
    button.setAttribute('aria-current', String(current !== null && doc.id === current.id));
    var name = document.createElement('span');
    name.className = 'name';
    name.textContent = baseName(doc.source);
    button.appendChild(name);
    badge(button, statusOf(doc), statusWords(doc));
    if (doc.type) badge(button, '', doc.type);
    if (doc.reviewed) badge(button, 'reviewed', doc.approved ? 'approved' : 'corrected');
    button.addEventListener('click', function () { open(doc.id); });
    list.appendChild(document.createElement('li')).appendChild(button);
  });
  $('count').textContent = shown.length + ' of ' + all.length + ' documents';
}

function badge(parent, kind, text) {
  var span = document.createElement('span');
  span.className = 'badge ' + kind;
  span.textContent = text;
  parent.appendChild(span);
}

async function open(id) {
  var ticket = ++opened;
  var view = await api('api/document?id=' + encodeURIComponent(id));
  if (ticket !== opened) return;
  show(view);
  var viewer = document.querySelector('.viewer');
  renderSource(viewer, view, function () { return ticket === opened; });
}

function show(view) {
  current = view;
  var pane = $('document-pane');
  var viewer = pane.querySelector('.viewer');
  if (!viewer || viewer.dataset.id !== view.id) {
    pane.textContent = '';
    viewer = document.createElement('div');
    viewer.className = 'viewer';
    viewer.dataset.id = view.id;
    viewer.setAttribute('aria-label', 'the document');
    pane.appendChild(viewer);
  }
  var old = pane.querySelector('.fields');
  if (old) old.remove();
  if (view.error) {
    pane.appendChild(failure(view));
    renderList();
    return;
  }
  var form = document.createElement('form');
  form.className = 'fields';
  form.setAttribute('aria-label', 'fields of ' + baseName(view.source));
  form.addEventListener('submit', function (event) { event.preventDefault(); save(false); });
  var title = document.createElement('h2');
  title.textContent = baseName(view.source);
  form.appendChild(title);
  var meta = document.createElement('p');
  meta.className = 'meta';
  meta.textContent = view.type + ' · ' + view.status + (view.missing_pages.length ? ' (pages ' + view.missing_pages.join(', ') + ' missing)' : '') +
    ' · ' + (view.passed === null ? 'no schema' : view.passed ? 'checks passed' : view.problems + ' problem(s)') +
    (view.reviewed ? ' · ' + (view.approved ? 'approved' : 'corrected') + ' ' + new Date(view.reviewed_at).toLocaleString() : '') +
    (view.stale_review ? ' · a review of an earlier extraction is not applied' : '');
  form.appendChild(meta);
  var actions = document.createElement('div');
  actions.className = 'actions';
  actions.appendChild(button('Save (Ctrl+S)', 'submit', 'save', ''));
  actions.appendChild(button(view.approved ? 'Approved ✓ (a)' : 'Approve (a)', 'button', 'approve', 'primary')).addEventListener('click', function () { save(true); });
  form.appendChild(actions);
  renderForm(form, view);
  pane.appendChild(form);
  renderList();
}

/** A document without a result: why, in place of a form (nothing to correct or approve). */
function failure(view) {
  var section = document.createElement('section');
  section.className = 'fields failure';
  section.setAttribute('aria-label', 'why ' + baseName(view.source) + ' has no result');
  var title = document.createElement('h2');
  title.textContent = baseName(view.source);
  section.appendChild(title);
  var meta = document.createElement('p');
  meta.className = 'meta';
  meta.textContent = view.status + ' · no result · reported by the run that finished ' + new Date(view.finished_at).toLocaleString();
  section.appendChild(meta);
  var error = document.createElement('div');
  error.className = 'error';
  error.setAttribute('role', 'alert');
  var code = document.createElement('code');
  code.textContent = view.error.code || view.status;
  error.appendChild(code);
  var message = document.createElement('p');
  message.textContent = view.error.message || 'No reason was recorded.';
  error.appendChild(message);
  section.appendChild(error);
  var path = document.createElement('p');
  path.className = 'meta';
  path.textContent = view.source;
  section.appendChild(path);
  return section;
}

function button(text, type, name, kind) {
  var b = document.createElement('button');
  b.type = type;
  b.name = name;
  b.className = kind;
  b.textContent = text;
  return b;
}

async function save(approve) {
  if (!current || current.error) return;
  var form = document.querySelector('.fields');
  var body = { values: changedValues(form), approved: approve ? true : current.approved };
  var view = await api('api/document?id=' + encodeURIComponent(current.id), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  // The list keeps its order while the person works through it: a fixed document does not jump away.
  all = all.map(function (doc) { return doc.id === view.id ? { id: doc.id, source: doc.source, type: doc.type, status: doc.status, passed: view.passed, problems: view.problems, reviewed: view.reviewed, approved: view.approved } : doc; });
  show(view);
  say((approve ? 'Approved' : 'Saved') + ' ' + baseName(view.source) + ' at ' + new Date(view.reviewed_at).toLocaleTimeString() + ': ' + (view.passed === null ? 'no schema to check' : view.passed ? 'checks passed' : view.problems + ' problem(s) left'));
}

function step(by) {
  if (shown.length === 0) return;
  var index = current ? shown.findIndex(function (doc) { return doc.id === current.id; }) : -1;
  var next = shown[Math.min(shown.length - 1, Math.max(0, index + by))];
  if (next && (!current || next.id !== current.id)) open(next.id);
}

document.addEventListener('keydown', function (event) {
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 's') {
    event.preventDefault();
    save(false).catch(function (error) { say(String(error.message || error)); });
    return;
  }
  var typing = event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement;
  if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === 'j') step(1);
  else if (event.key === 'k') step(-1);
  else if (event.key === 'a') save(true).catch(function (error) { say(String(error.message || error)); });
});
$('filter-type').addEventListener('change', renderList);
$('filter-status').addEventListener('change', renderList);

loadList().then(function () { if (shown.length > 0) return open(shown[0].id); }).catch(function (error) { say(String(error.message || error)); });
`;
