/**
 * Shortest key we show a tail of. Real keys are `sk_` + 32 hex (35 chars);
 * for a short test key, four characters would be most of the secret.
 */
const MIN_LENGTH_TO_SHOW_TAIL = 16;

/**
 * Show an API key the only way it may ever be shown: its prefix and last four
 * characters. Used by config output, whoami, debug logs and error messages.
 */
export function redactKey(key: string): string {
  return key.length >= MIN_LENGTH_TO_SHOW_TAIL ? `sk_…${key.slice(-4)}` : 'sk_…';
}

/** Replace every occurrence of `secret` in `text` with its redacted form. */
export function redactSecret(text: string, secret: string | undefined): string {
  if (!secret) return text;
  return text.split(secret).join(redactKey(secret));
}
