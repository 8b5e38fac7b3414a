// @ts-check
/**
 * Parts of the document pane that hold no state: a button, the zoom's
 * toolbar, and the view of a document that got no result (why, in place of
 * a form: nothing to correct or approve).
 */
import { onZoomChange, setZoom } from './viewer.js';

/** @typedef {import('../review/review-model.js').FailedDocumentView} FailedDocumentView */

/** @param {string} path */
export function baseName(path) {
  return path.split(/[\\/]/).pop() ?? path;
}

/**
 * @param {string} text
 * @param {'submit' | 'button'} type
 * @param {string} name
 * @param {string} kind
 */
export function button(text, type, name, kind) {
  const b = document.createElement('button');
  b.type = type;
  b.name = name;
  b.className = kind;
  b.textContent = text;
  return b;
}

/** A document without a result: why, in place of a form (nothing to correct or approve). @param {FailedDocumentView} view */
export function failure(view) {
  const section = document.createElement('section');
  section.className = 'fields failure';
  section.tabIndex = -1;
  section.setAttribute('aria-label', `why ${baseName(view.source)} has no result`);
  const title = document.createElement('h2');
  title.textContent = baseName(view.source);
  section.appendChild(title);
  const meta = document.createElement('p');
  meta.className = 'meta';
  meta.textContent = `${view.status} · no result · reported by the run that finished ${view.finished_at_local}`;
  section.appendChild(meta);
  const error = document.createElement('div');
  error.className = 'error';
  error.setAttribute('role', 'alert');
  const code = document.createElement('code');
  code.textContent = view.error.code || view.status;
  error.appendChild(code);
  const message = document.createElement('p');
  message.textContent = view.error.message || 'No reason was recorded.';
  error.appendChild(message);
  section.appendChild(error);
  const path = document.createElement('p');
  path.className = 'meta';
  path.textContent = view.source;
  section.appendChild(path);
  return section;
}

/** The zoom's buttons, and its words (fit width, 125%). */
export function viewerTools() {
  const tools = document.createElement('div');
  tools.className = 'viewer-tools';
  tools.setAttribute('role', 'toolbar');
  tools.setAttribute('aria-label', 'zoom');
  tools.appendChild(button('Fit width (0)', 'button', 'fit', '')).addEventListener('click', () => void setZoom(0));
  tools.appendChild(button('− (-)', 'button', 'zoom-out', '')).addEventListener('click', () => void setZoom(-1));
  tools.appendChild(button('+ (+)', 'button', 'zoom-in', '')).addEventListener('click', () => void setZoom(1));
  const words = document.createElement('span');
  words.className = 'zoom';
  tools.appendChild(words);
  onZoomChange((text) => (words.textContent = text));
  return tools;
}
