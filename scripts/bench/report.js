// Figures, targets and the table. A section records what it measured as it goes, so a section that
// fails half-way still reports what it has.

export class Section {
  constructor(name, title) {
    this.name = name;
    this.title = title;
    /** @type {{ label: string, value: number | string | null, unit: string, text: string, target: string | null, met: boolean | null }[]} */
    this.figures = [];
    /** Things that make the run a failure (not a missed target): a crash, a non-zero exit, a lost file. */
    this.problems = [];
    this.details = {};
    this.seconds = 0;
  }

  /**
   * @param {string} label
   * @param {number | string | null} value
   * @param {{ unit?: string, digits?: number, text?: string, atMost?: number, atLeast?: number, equals?: number }} [options]
   */
  add(label, value, options = {}) {
    const { unit = '', digits = 0, atMost, atLeast, equals } = options;
    const numeric = typeof value === 'number' && Number.isFinite(value);
    const text = options.text ?? (numeric ? `${value.toFixed(digits)}${unit ? ` ${unit}` : ''}` : String(value ?? 'n/a'));
    let target = null;
    let met = null;
    if (atMost !== undefined) [target, met] = [`≤ ${atMost}${unit ? ` ${unit}` : ''}`, numeric ? value <= atMost : false];
    if (atLeast !== undefined) [target, met] = [`≥ ${atLeast}${unit ? ` ${unit}` : ''}`, numeric ? value >= atLeast : false];
    if (equals !== undefined) [target, met] = [`${equals}`, value === equals];
    this.figures.push({ label, value: numeric ? Number(value.toFixed(Math.max(digits, 3))) : value, unit, text, target, met });
  }

  problem(text) {
    this.problems.push(text);
  }
}

export function missedTargets(sections) {
  return sections.flatMap((s) => s.figures.filter((f) => f.met === false).map((f) => `${s.title}: ${f.label} = ${f.text} (target ${f.target})`));
}

/** A plain-text table for stdout (no colour, so it pastes anywhere). */
export function formatTable(sections) {
  const rows = [['section', 'figure', 'value', 'target', '']];
  for (const section of sections) {
    let first = true;
    for (const f of section.figures) {
      wrap(f.text).forEach((text, i) =>
        rows.push([first && !i ? section.title : '', i ? '' : f.label, text, i ? '' : (f.target ?? ''), i || f.met === null ? '' : f.met ? 'ok' : 'MISSED']),
      );
      first = false;
    }
    for (const problem of section.problems) {
      wrap(problem).forEach((text, i) => rows.push([first && !i ? section.title : '', i ? '' : 'FAILED', text, '', '']));
      first = false;
    }
    if (first) rows.push([section.title, '(nothing measured)', '', '', '']);
  }
  const widths = rows[0].map((_, col) => Math.max(...rows.map((row) => [...row[col]].length)));
  const line = (row) =>
    row
      .map((cell, col) => cell + ' '.repeat(widths[col] - [...cell].length))
      .join('  ')
      .trimEnd();
  const rule = widths
    .map((w) => '-'.repeat(w))
    .join('  ')
    .trimEnd();
  return [line(rows[0]), rule, ...rows.slice(1).map(line)].join('\n');
}

const VALUE_WIDTH = 76;

/** Long values (lists of files) break after '; ' or ', ' so the table stays readable. */
function wrap(text) {
  const lines = [];
  let rest = text;
  while ([...rest].length > VALUE_WIDTH) {
    const window = rest.slice(0, VALUE_WIDTH);
    const cut = Math.max(window.lastIndexOf('; '), window.lastIndexOf(', '), window.lastIndexOf(' '));
    const at = cut > 20 ? cut + 1 : VALUE_WIDTH;
    lines.push(rest.slice(0, at).trimEnd());
    rest = `  ${rest.slice(at).trimStart()}`;
  }
  lines.push(rest);
  return lines;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
