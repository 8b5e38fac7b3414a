/**
 * A moment for people: the local date and time, with its zone
 * ("2026-11-24 22:24:03 UTC", "2026-11-24 23:24:03 GMT+1"). Every time a
 * message shows is local, like the waits' "14:05"; data (JSON fields such as
 * `expires_at`) keeps UTC ISO 8601.
 */
export function localInstant(ms: number): string {
  const at = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, '0');
  const zone = new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(at).find((part) => part.type === 'timeZoneName')?.value ?? '';
  const date = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
  return `${date} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}${zone ? ` ${zone}` : ''}`;
}
