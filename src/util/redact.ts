/**
 * Show an API key the only way it may ever be shown: its prefix and last four
 * characters. Used by config output, whoami, debug logs and error messages.
 */
export function redactKey(key: string): string {
  const prefix = key.startsWith('sk_') ? 'sk_' : key.startsWith('sk-') ? 'sk-' : '';
  if (key.length < prefix.length + 8) return `${prefix}…`;
  return `${prefix}…${key.slice(-4)}`;
}

/** Replace every occurrence of `secret` in `text` with its redacted form. */
export function redactSecret(text: string, secret: string | undefined): string {
  if (!secret) return text;
  return text.split(secret).join(redactKey(secret));
}
