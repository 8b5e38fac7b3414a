/** A positive whole number as written in a setting or flag (`64`, not `6.4`, `0` or `1e3`). */
export function parsePositiveWhole(text: string): number {
  const trimmed = text.trim();
  if (!/^[1-9]\d*$/.test(trimmed)) throw new Error(`must be a positive whole number, not "${text}".`);
  return Number(trimmed);
}
