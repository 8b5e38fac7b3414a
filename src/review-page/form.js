// @ts-check
/**
 * The page's form: draws the fields the server computed (review-form.ts):
 * each input labelled by its dotted path (aria-label), inside a slot that
 * the keys move between, with the problems the checks found there. Paths,
 * types and patterns all come from the server; nothing is worked out here.
 */

/** @typedef {import('../review/review-form.js').FormNode} FormNode */
/** @typedef {import('../review/review-form.js').FormField} FormField */
/** @typedef {import('../review/review-form.js').FormSection} FormSection */

let noteCount = 0;
let inputCount = 0;

/**
 * @param {string} tag
 * @param {Record<string, string>} [attrs]
 * @param {string} [text]
 * @returns {HTMLElement}
 */
function el(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** @param {string[]} messages */
function problemNote(messages) {
  return el('p', { class: 'problem', id: `problem-${++noteCount}` }, messages.join('; '));
}

/**
 * Draws the sections of a document's form into container.
 * @param {HTMLElement} container
 * @param {FormSection[]} sections
 */
export function renderForm(container, sections) {
  for (const section of sections) {
    const root = el('div', { class: 'form-root' });
    if (section.title) root.appendChild(el('h3', { class: 'part' }, section.title));
    if (section.problems.length > 0) root.appendChild(problemNote(section.problems.map((message) => `the data ${message}`)));
    if (section.extra.length > 0) {
      const extra = el('fieldset', { class: 'missing' });
      extra.appendChild(el('legend', {}, 'Fields the service did not return'));
      for (const field of section.extra) extra.appendChild(fieldSlot(field, section.editable));
      root.appendChild(extra);
    }
    for (const node of section.nodes) root.appendChild(nodeElement(node, section.editable));
    container.appendChild(root);
  }
}

/**
 * @param {FormNode} node
 * @param {boolean} editable
 * @returns {HTMLElement}
 */
function nodeElement(node, editable) {
  if (node.kind === 'field') return fieldSlot(node, editable);
  if (node.kind === 'group') {
    const set = el('fieldset', { 'data-group': node.path });
    set.appendChild(el('legend', {}, node.label));
    if (node.problems.length > 0) set.appendChild(problemNote(node.problems));
    for (const child of node.children) set.appendChild(nodeElement(child, editable));
    return set;
  }
  const table = el('table', { 'data-group': node.path });
  table.appendChild(el('caption', {}, node.label));
  if (node.problems.length > 0) table.appendChild(problemNote(node.problems));
  const head = el('tr');
  head.appendChild(el('th', { scope: 'col' }, '#'));
  for (const name of node.columns) head.appendChild(el('th', { scope: 'col' }, name));
  table.appendChild(el('thead')).appendChild(head);
  const body = table.appendChild(el('tbody'));
  node.rows.forEach((cells, index) => {
    const row = el('tr');
    row.appendChild(el('th', { scope: 'row' }, String(index + 1)));
    for (const cell of cells) {
      const td = el('td');
      if (cell && cell.kind === 'field') fillSlot(td, cell, editable);
      else if (cell) td.appendChild(nodeElement(cell, editable));
      row.appendChild(td);
    }
    body.appendChild(row);
  });
  // A wide table (line items with their columns) scrolls inside its own box, not past the pane's edge.
  const scroller = el('div', { class: 'table-scroll' });
  scroller.appendChild(table);
  return scroller;
}

/**
 * A field with its label, input and problems, in a slot the keys can land on.
 * @param {FormField} field
 * @param {boolean} editable
 */
function fieldSlot(field, editable) {
  const slot = el('div', { class: 'field' });
  slot.appendChild(el('label', {}, field.label));
  fillSlot(slot, field, editable);
  const label = slot.querySelector('label');
  const input = slot.querySelector('input');
  if (label && input) label.setAttribute('for', input.id);
  return slot;
}

/**
 * @param {HTMLElement} slot
 * @param {FormField} field
 * @param {boolean} editable
 */
function fillSlot(slot, field, editable) {
  slot.classList.add('slot');
  slot.tabIndex = -1;
  slot.dataset.path = field.path;
  const input = /** @type {HTMLInputElement} */ (
    el('input', { type: 'text', id: `field-${++inputCount}`, 'aria-label': field.path, 'data-path': field.path, autocomplete: 'off', spellcheck: 'false' })
  );
  input.value = field.text;
  input.dataset.initial = field.text;
  input.dataset.type = field.type;
  input.readOnly = !editable;
  if (field.type !== 'string') input.inputMode = field.type === 'boolean' ? 'text' : 'decimal';
  if (field.pattern !== undefined) input.pattern = field.pattern;
  if (field.refusal !== undefined) input.dataset.refusal = field.refusal;
  if (field.empty) input.placeholder = 'null';
  if (field.corrected_from !== undefined) {
    input.classList.add('corrected');
    input.title = `corrected; the service returned: ${field.corrected_from || 'nothing'}`;
  }
  slot.appendChild(input);
  if (field.problems.length > 0) {
    slot.classList.add('has-problem');
    const note = problemNote(field.problems);
    input.setAttribute('aria-invalid', 'true');
    input.setAttribute('aria-describedby', note.id);
    slot.appendChild(note);
  }
}

/**
 * Says at the field why its text is refused (or takes the message away);
 * the slot counts as a field with a problem while it stands.
 * @param {HTMLInputElement} input
 * @param {string | null} message
 */
export function markRefused(input, message) {
  const slot = /** @type {HTMLElement | null} */ (input.closest('.slot'));
  if (!slot) return;
  slot.querySelector('.refusal')?.remove();
  slot.classList.toggle('refused', message !== null);
  if (message === null) {
    if (!slot.querySelector('.problem')) input.removeAttribute('aria-invalid');
    const note = slot.querySelector('.problem');
    if (note) input.setAttribute('aria-describedby', note.id);
    else input.removeAttribute('aria-describedby');
    return;
  }
  const note = el('p', { class: 'problem refusal', id: `problem-${++noteCount}`, role: 'alert' }, message);
  slot.appendChild(note);
  input.setAttribute('aria-invalid', 'true');
  input.setAttribute('aria-describedby', note.id);
}

/**
 * The text of an input that its type refuses (the server's pattern, as sent): the message to show, else null.
 * @param {HTMLInputElement} input
 */
export function refusalOf(input) {
  if (!input.validity.patternMismatch) return null;
  return `${input.dataset.path} ${input.dataset.refusal ?? 'is not of its type'}: "${input.value}" is not saved`;
}
