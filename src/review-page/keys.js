// @ts-check
/**
 * The page's keys (the table in index.html and in the README lists the
 * same): letters act only outside an input, so nothing is typed into a
 * field by a key meant for the page; Escape, F8, Ctrl+S work everywhere.
 */

/**
 * @typedef {object} KeyActions
 * @property {(by: 1 | -1) => void} step next / previous document
 * @property {(by: 1 | -1) => void} problem next / previous field with a problem
 * @property {(by: 1 | -1) => void} field next / previous field
 * @property {(approve: boolean) => void} save
 * @property {() => void} discard
 * @property {(direction: -1 | 0 | 1) => void} zoom
 * @property {() => void} help
 */

/** @param {EventTarget | null} target */
function isTyping(target) {
  return target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement;
}

/** @param {KeyActions} actions */
export function bindKeys(actions) {
  document.addEventListener('keydown', (event) => {
    const { key, target } = event;
    if ((event.ctrlKey || event.metaKey) && key.toLowerCase() === 's') {
      event.preventDefault();
      actions.save(false);
      return;
    }
    if (key === 'F8') {
      event.preventDefault();
      actions.problem(event.shiftKey ? -1 : 1);
      return;
    }
    if (key === 'Escape' && isTyping(target)) {
      // Out of the field, onto its slot: the edit stays (a draft), and the letters are keys again.
      event.preventDefault();
      const element = /** @type {HTMLElement} */ (target);
      const slot = /** @type {HTMLElement | null} */ (element.closest('.slot'));
      element.blur();
      slot?.focus();
      return;
    }
    if (isTyping(target) || event.ctrlKey || event.metaKey || event.altKey) return;
    if (key === 'Enter' && target instanceof HTMLElement && target.classList.contains('slot')) {
      event.preventDefault();
      const input = target.querySelector('input');
      input?.focus();
      input?.setSelectionRange(input.value.length, input.value.length);
      return;
    }
    /** @type {Record<string, () => void>} */
    const keys = {
      j: () => actions.step(1),
      k: () => actions.step(-1),
      ArrowDown: () => actions.field(1),
      ArrowUp: () => actions.field(-1),
      a: () => actions.save(true),
      d: () => actions.discard(),
      '+': () => actions.zoom(1),
      '=': () => actions.zoom(1),
      '-': () => actions.zoom(-1),
      0: () => actions.zoom(0),
      '?': () => actions.help(),
    };
    const action = Object.hasOwn(keys, key) ? keys[key] : undefined;
    if (!action) return;
    event.preventDefault();
    action();
  });
}
