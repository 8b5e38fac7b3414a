/** An answer's headers; an array value goes out as that many header lines. */
export type AnswerHeaders = Record<string, string | string[]>;

/** Header names as the answers carry them (lower case, so a fault can find and duplicate them). */
const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;

const YEAR_S = 365 * 86_400;

/** Picks from a fixed list with the fault PRNG. */
export type Pick = <T>(choices: readonly T[]) => T;

/** Lower-cases header names, so that the faults below replace rather than add a second spelling. */
export function normalisedHeaders(headers: Record<string, string>): AnswerHeaders {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function conflictingValue(value: string): string {
  const number = Number(value);
  return Number.isFinite(number) && value.trim() !== '' ? String(number + 4) : '7';
}

/**
 * extra_headers: headers no client asked for, every X-RateLimit-* header sent
 * twice with conflicting values (so `Headers.get` reads "3, 7"), and a second
 * Date an hour away from the first.
 */
export function addExtraHeaders(headers: AnswerHeaders, shownNowMs: number): void {
  headers['x-powered-by'] = 'PHP/7.4.33';
  headers['x-debug-trace'] = 'node=web-3; cache=MISS';
  headers['set-cookie'] = ['PHPSESSID=0123456789abcdef; path=/; HttpOnly', 'lb=web-3; path=/'];
  headers.warning = '199 - "Miscellaneous warning"';
  for (const name of RATE_HEADERS) {
    const present = headers[name];
    const first = typeof present === 'string' ? present : '3';
    headers[name] = [first, conflictingValue(first)];
  }
  headers.date = [new Date(shownNowMs).toUTCString(), new Date(shownNowMs + 3_600_000).toUTCString()];
}

/**
 * ratelimit_garbage: rate headers no honest server would send. Each variant
 * breaks a different assumption: Remaining within Limit, non-negative
 * numbers, numbers at all, a Reset within reach.
 */
export function garbleRateHeaders(headers: AnswerHeaders, shownNowMs: number, pick: Pick): void {
  const nowS = Math.ceil(shownNowMs / 1000);
  const variant = pick<[string, string, string]>([
    ['10', '250', String(nowS + 10 * YEAR_S)],
    ['-10', '-1', String(nowS - 10 * YEAR_S)],
    ['ten', 'plenty', 'soon'],
    ['0', '-5', '-1'],
    ['1e400', 'NaN', String((nowS + 30 * YEAR_S) * 1000)],
  ]);
  const [limit, remaining, reset] = variant;
  headers['x-ratelimit-limit'] = limit;
  headers['x-ratelimit-remaining'] = remaining;
  headers['x-ratelimit-reset'] = reset;
}

/** date_garbage: a Date that does not parse, or one years away from the truth. */
export function garbleDate(headers: AnswerHeaders, shownNowMs: number, pick: Pick): void {
  headers.date = pick([
    'yesterday, around noon',
    'Blursday, 99 Foo 20XX 99:99:99 GMT',
    new Date(shownNowMs + 7 * YEAR_S * 1000).toUTCString(),
    new Date(shownNowMs - 12 * YEAR_S * 1000).toUTCString(),
  ]);
}
