/** Where the API versions live: the tool adds `/v3.1/...` to the base URL itself. */
const VERSION_SUFFIX = /\/v3(\.1)?\/*$/;

export type BaseUrlCheck = { ok: true; url: string } | { ok: false; message: string };

/**
 * A base URL as the service's address: http(s), no trailing slash, and
 * without a `/v3.1` the tool adds itself (kept, it asked `/v3.1/v3.1/...`).
 * An address without a scheme gets the suggestion of one.
 */
export function parseBaseUrl(raw: string): BaseUrlCheck {
  const value = raw.trim();
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  // `127.0.0.1:8080` parses with the scheme "127.0.0.1:"; `localhost:8080` as "localhost:".
  if (!url || !/^https?:$/.test(url.protocol)) {
    if (/^[\w.-]+(:\d+)?(\/.*)?$/.test(value) || /^\[[\d:a-f]+\](:\d+)?/i.test(value)) {
      const loopback = /^(localhost|127\.|\[::1\])/.test(value);
      return { ok: false, message: `"${value}" has no scheme; did you mean ${loopback ? 'http' : 'https'}://${value}?` };
    }
    if (url) return { ok: false, message: `the base URL must be http or https, not ${url.protocol}` };
    return { ok: false, message: `"${value}" is not a URL.` };
  }
  url.search = '';
  url.hash = '';
  const path = url.pathname.replace(VERSION_SUFFIX, '').replace(/\/+$/, '');
  return { ok: true, url: `${url.origin}${path}` };
}

/** A host the key may be sent to over plain http: this machine. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
