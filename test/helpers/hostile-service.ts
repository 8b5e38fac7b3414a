/**
 * A service that answers as the emulator does, with texts of a sender's
 * choosing: `rewrite` sees each JSON answer (its endpoint, its body) and
 * returns the body to give the CLI instead. The CLI's own fetch, so nothing
 * of the emulator changes for the other tests.
 */
export function rewritingFetch(rewrite: (endpoint: string, body: Record<string, unknown>) => Record<string, unknown>): typeof fetch {
  return async (...request) => {
    const response = await fetch(...request);
    if (!(response.headers.get('content-type') ?? '').includes('application/json')) return response;
    const endpoint = new URL(request[0] instanceof Request ? request[0].url : String(request[0])).pathname.split('/').at(-1) ?? '';
    const body = rewrite(endpoint, (await response.json()) as Record<string, unknown>);
    const headers = new Headers(response.headers);
    // The body is new: its length and encoding are no longer the emulator's.
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(JSON.stringify(body), { status: response.status, statusText: response.statusText, headers });
  };
}

/** Every error answer's message replaced by `message`. */
export function withErrorMessage(message: string): (endpoint: string, body: Record<string, unknown>) => Record<string, unknown> {
  return (_endpoint, body) => {
    const error = body.error;
    return typeof error === 'object' && error !== null ? { ...body, error: { ...error, message } } : body;
  };
}
