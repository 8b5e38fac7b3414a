/**
 * The page's form (form.js): a document's data as inputs, each labelled by
 * its dotted path (aria-label) and carrying the problems the checks found
 * there; nested objects as fieldsets, lists of objects as tables.
 */
export const FORM_JS = String.raw`
var problemCount = 0;

function isObject(value) { return value !== null && typeof value === 'object' && !Array.isArray(value); }
function isItemList(value) { return Array.isArray(value) && value.length > 0 && value.every(isObject); }
function join(prefix, key) { return prefix === '' ? String(key) : prefix + '.' + key; }
function textOf(value) { return value === null || value === undefined ? '' : typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value); }
function el(tag, attrs, text) {
  var node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (name) { node.setAttribute(name, attrs[name]); });
  if (text !== undefined) node.textContent = text;
  return node;
}

function problemNote(messages) {
  var note = el('p', { class: 'problem', id: 'problem-' + (++problemCount) });
  note.textContent = messages.join('; ');
  return note;
}

/** Renders view.data into container; returns nothing. Problems are marked where their path is. */
export function renderForm(container, view) {
  var problems = {};
  view.problems_at.forEach(function (problem) { (problems[problem.path] = problems[problem.path] || []).push(problem.message); });
  var ctx = { problems: problems, used: {}, corrections: view.corrections || {}, original: view.original };
  var root = el('div', { class: 'form-root' });
  if (isObject(view.data)) Object.keys(view.data).forEach(function (key) { renderEntry(root, key, view.data[key], key, ctx); });
  var left = Object.keys(problems).filter(function (path) { return !ctx.used[path]; });
  if (left.length > 0) {
    var extra = el('fieldset', { class: 'missing', 'data-path': '' });
    extra.appendChild(el('legend', {}, 'Problems at fields not in the data'));
    left.forEach(function (path) {
      if (path === '') { extra.appendChild(problemNote(problems[path].map(function (m) { return 'the data ' + m; }))); return; }
      renderScalar(extra, path, undefined, path, ctx);
    });
    container.appendChild(extra);
  }
  container.appendChild(root);
}

function renderEntry(parent, key, value, path, ctx) {
  if (isObject(value)) {
    var set = el('fieldset', { 'data-path': path });
    set.appendChild(el('legend', {}, key));
    markGroup(set, path, ctx);
    Object.keys(value).forEach(function (inner) { renderEntry(set, inner, value[inner], join(path, inner), ctx); });
    parent.appendChild(set);
  } else if (isItemList(value)) {
    parent.appendChild(renderTable(key, value, path, ctx));
  } else if (Array.isArray(value)) {
    var list = el('fieldset', { 'data-path': path });
    list.appendChild(el('legend', {}, key + (value.length === 0 ? ' (empty list)' : '')));
    markGroup(list, path, ctx);
    value.forEach(function (item, index) { renderEntry(list, String(index + 1), item, join(path, index), ctx); });
    parent.appendChild(list);
  } else {
    renderScalar(parent, key, value, path, ctx);
  }
}

function markGroup(node, path, ctx) {
  if (!ctx.problems[path]) return;
  ctx.used[path] = true;
  node.appendChild(problemNote(ctx.problems[path]));
}

function renderTable(key, items, path, ctx) {
  var columns = [];
  items.forEach(function (item) { Object.keys(item).forEach(function (name) { if (columns.indexOf(name) < 0) columns.push(name); }); });
  var table = el('table', { 'data-path': path });
  table.appendChild(el('caption', {}, key));
  markGroup(table, path, ctx);
  var head = el('tr');
  head.appendChild(el('th', { scope: 'col' }, '#'));
  columns.forEach(function (name) { head.appendChild(el('th', { scope: 'col' }, name)); });
  table.appendChild(el('thead')).appendChild(head);
  var body = table.appendChild(el('tbody'));
  items.forEach(function (item, index) {
    var row = el('tr');
    row.appendChild(el('th', { scope: 'row' }, String(index + 1)));
    columns.forEach(function (name) {
      var cell = el('td');
      var cellPath = join(join(path, index), name);
      var value = item[name];
      if (isObject(value) || Array.isArray(value)) renderEntry(cell, name, value, cellPath, ctx);
      else cell.insertBefore(inputFor(cellPath, value, ctx, cell), cell.firstChild);
      row.appendChild(cell);
    });
    body.appendChild(row);
  });
  return table;
}

function renderScalar(parent, key, value, path, ctx) {
  var field = el('div', { class: 'field' });
  var label = el('label', {}, key);
  field.appendChild(label);
  var input = inputFor(path, value, ctx, field);
  label.setAttribute('for', input.id);
  field.insertBefore(input, label.nextSibling);
  parent.appendChild(field);
}

var inputCount = 0;
function inputFor(path, value, ctx, holder) {
  var text = textOf(value);
  var input = el('input', { type: 'text', id: 'field-' + (++inputCount), 'aria-label': path, 'data-path': path, 'data-initial': text, autocomplete: 'off', spellcheck: 'false' });
  input.value = text;
  if (value === null) input.placeholder = 'null';
  if (Object.prototype.hasOwnProperty.call(ctx.corrections, path)) {
    input.classList.add('corrected');
    input.title = 'corrected; the service returned: ' + (textOf(lookup(ctx.original, path)) || 'nothing');
  }
  if (ctx.problems[path]) {
    ctx.used[path] = true;
    var note = problemNote(ctx.problems[path]);
    input.setAttribute('aria-invalid', 'true');
    input.setAttribute('aria-describedby', note.id);
    holder.appendChild(note);
  }
  return input;
}

function lookup(root, path) {
  return path.split('.').reduce(function (value, segment) { return value === null || value === undefined ? undefined : value[segment]; }, root);
}

/** The inputs whose text the person changed, by dotted path. */
export function changedValues(container) {
  var values = {};
  container.querySelectorAll('input[data-path]').forEach(function (input) {
    if (input.value !== input.dataset.initial) values[input.dataset.path] = input.value;
  });
  return values;
}
`;
