// @ts-check
/**
 * Where the keyboard's focus lands on the form: on a field's slot (the box
 * around its label and input), so that letters stay keys until Enter goes
 * into the input. j and k land on the first field with a problem, F8 and
 * the arrows move from slot to slot.
 */

/** The slots the keys move between, in the form's order; `problems` only those with a problem. @param {boolean} problems */
export function slots(problems) {
  const all = /** @type {HTMLElement[]} */ ([...document.querySelectorAll('.fields .slot')]);
  return problems ? all.filter((slot) => slot.classList.contains('has-problem') || slot.classList.contains('refused')) : all;
}

/** The slot the focus is in (on it, or in its input). */
export function focusedSlot() {
  return /** @type {HTMLElement | null} */ (document.activeElement?.closest('.slot') ?? null);
}

/** @param {HTMLElement | undefined} slot */
export function land(slot) {
  if (!slot) return false;
  slot.focus();
  slot.scrollIntoView({ block: 'nearest' });
  return true;
}

export function landOnFirstProblem() {
  if (land(slots(true)[0]) || land(slots(false)[0])) return;
  /** @type {HTMLElement | null} */ (document.querySelector('#document-pane .fields'))?.focus();
}

/**
 * The next (or previous) slot after the focused one, round the end.
 * @param {boolean} problems
 * @param {1 | -1} by
 */
export function move(problems, by) {
  const list = slots(problems);
  if (list.length === 0) return;
  const here = focusedSlot();
  const order = slots(false);
  const at = here ? order.indexOf(here) : -1;
  const after = list.filter((slot) => (by > 0 ? order.indexOf(slot) > at : at < 0 || order.indexOf(slot) < at));
  land(by > 0 ? (after[0] ?? list[0]) : (after[after.length - 1] ?? list[list.length - 1]));
}
