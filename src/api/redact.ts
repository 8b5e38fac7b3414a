/**
 * Shortest key we show a tail of. Real keys are `sk_` + 32 hex (35 chars);
 * for a short test key, four characters would be most of the secret.
 */
const MIN_LENGTH_TO_SHOW_TAIL = 16;

/** `sk_…` plus the key's last 4 characters, and never more. */
export function redactKey(key: string): string {
  return key.length >= MIN_LENGTH_TO_SHOW_TAIL ? `sk_…${key.slice(-4)}` : 'sk_…';
}

/**
 * A function that replaces every occurrence of the key in a text with its
 * redacted form. Applied to every debug line and to server-supplied text we
 * put into error messages, since a server may echo the key back.
 */
export function keyRedactor(apiKey: string | undefined): (text: string) => string {
  if (!apiKey) return (text) => text;
  const masked = redactKey(apiKey);
  return (text) => text.split(apiKey).join(masked);
}
