/** The service's key format (spec §5): `sk_` followed by 32 hexadecimal characters. */
const API_KEY_PATTERN = /^sk_[0-9a-fA-F]{32}$/;

export type ApiKeyProblem = { ok: false; message: string };

/** Check a key's shape before it is stored or sent; the message says what is wrong. */
export function checkApiKeyShape(key: string): { ok: true } | ApiKeyProblem {
  const trimmed = key.trim();
  if (trimmed.startsWith('sk-')) {
    return {
      ok: false,
      message:
        'This key starts with "sk-", which marks another provider\'s key. Document Extraction Service keys start with "sk_" (underscore) followed by 32 hexadecimal characters.',
    };
  }
  if (API_KEY_PATTERN.test(trimmed) && /[A-F]/.test(trimmed.slice(3))) {
    // Hexadecimal, but the service compares keys exactly, and its keys are lower case: it would be rejected.
    return {
      ok: false,
      message: 'This key has upper-case letters; keys are "sk_" followed by 32 lower-case hexadecimal characters (0-9, a-f). Type it in lower case.',
    };
  }
  if (!API_KEY_PATTERN.test(trimmed)) {
    return {
      ok: false,
      message: 'An API key is "sk_" followed by 32 hexadecimal characters (0-9, a-f).',
    };
  }
  return { ok: true };
}
