/** The grammar of duration settings (--job-ttl, --retry-base, ...): a number and its unit. */
const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  d: 86_400_000,
  msec: 1,
  second: 1000,
  seconds: 1000,
  secs: 1000,
  minute: 60_000,
  minutes: 60_000,
  mins: 60_000,
  hour: 3_600_000,
  hours: 3_600_000,
  hrs: 3_600_000,
  day: 86_400_000,
  days: 86_400_000,
};

/**
 * Parse `500ms`, `90s`, `15min`, `2h`, `1d` (or the units spelled out). A
 * number needs its unit: `--job-ttl 2` was once read as 2 ms.
 */
export function parseDuration(spec: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(spec);
  const unit = match?.[2]?.toLowerCase() ?? '';
  if (match?.[1] && unit === '') throw new Error(`"${spec.trim()}" has no unit; say ${match[1]}s, ${match[1]}min or ${match[1]}h (or ms).`);
  const factor = UNIT_MS[unit];
  if (!match?.[1] || factor === undefined) {
    throw new Error(`"${spec}" is not a duration; use forms like 500ms, 90s, 15min, 2h or 1d.`);
  }
  return Math.round(Number(match[1]) * factor);
}
