import { redactSecret } from '../util/redact.js';

export { redactKey } from '../util/redact.js';

/**
 * A function that replaces every occurrence of the key in a text with its
 * redacted form. Applied to every debug line and to server-supplied text we
 * put into error messages, since a server may echo the key back.
 */
export function keyRedactor(apiKey: string | undefined): (text: string) => string {
  return (text) => redactSecret(text, apiKey);
}
