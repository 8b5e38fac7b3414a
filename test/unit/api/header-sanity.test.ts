import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { parseRateLimit, type ResponseEvent } from '../../../src/api/index.js';
import { parseServerDate } from '../../../src/api/server-date.js';
import { BASE, makeClient, useNock } from './helpers.js';

const rl = (limit?: string, remaining?: string, reset?: string): Headers => {
  const h = new Headers();
  if (limit !== undefined) h.set('x-ratelimit-limit', limit);
  if (remaining !== undefined) h.set('x-ratelimit-remaining', remaining);
  if (reset !== undefined) h.set('x-ratelimit-reset', reset);
  return h;
};

describe('parseRateLimit', () => {
  it.each([
    ['all three sane', rl('10', '3', '1767225600'), { limit: 10, remaining: 3, reset: 1767225600 }],
    ['surrounding spaces are fine', rl(' 10 ', ' 0', '60 '), { limit: 10, remaining: 0, reset: 60 }],
    ['only Reset', rl(undefined, undefined, '30'), { reset: 30 }],
    ['an empty header counts as absent', rl('', '4'), { remaining: 4 }],
    ['Remaining equal to Limit', rl('10', '10'), { limit: 10, remaining: 10 }],
  ])('%s', (_label, headers, expected) => {
    expect(parseRateLimit(headers)).toEqual(expected);
  });

  it('is undefined when no header is present', () => {
    expect(parseRateLimit(new Headers({ 'content-type': 'application/json' }))).toBeUndefined();
  });

  it.each([
    ['not a number', rl('ten', '3'), { remaining: 3 }, { header: 'x-ratelimit-limit', value: 'ten', reason: 'not a number' }],
    ['negative', rl('10', '-1'), { limit: 10 }, { header: 'x-ratelimit-remaining', value: '-1', reason: 'negative' }],
    ['several values in one header', rl('3, 7', '2'), { remaining: 2 }, { header: 'x-ratelimit-limit', value: '3, 7', reason: 'several values' }],
    ['a fraction', rl('10', '2.5'), { limit: 10 }, { header: 'x-ratelimit-remaining', value: '2.5', reason: 'not an integer' }],
    ['exponent junk', rl(undefined, undefined, '1e3'), {}, { header: 'x-ratelimit-reset', value: '1e3', reason: 'not an integer' }],
    ['hex junk', rl('0x10'), {}, { header: 'x-ratelimit-limit', value: '0x10', reason: 'not an integer' }],
    ['Infinity', rl('Infinity'), {}, { header: 'x-ratelimit-limit', value: 'Infinity', reason: 'not an integer' }],
    [
      'past the safe integers',
      rl(undefined, undefined, '99999999999999999999'),
      {},
      { header: 'x-ratelimit-reset', value: '99999999999999999999', reason: 'not an integer' },
    ],
    [
      'Remaining above Limit',
      rl('10', '11', '60'),
      { limit: 10, reset: 60 },
      { header: 'x-ratelimit-remaining', value: '11', reason: 'above x-ratelimit-limit (10)' },
    ],
  ])('ignores %s and says so', (_label, headers, kept, ignored) => {
    expect(parseRateLimit(headers)).toEqual({ ...kept, ignored: [ignored] });
  });

  it('a repeated header line is several values', () => {
    const headers = new Headers();
    headers.append('x-ratelimit-remaining', '3');
    headers.append('x-ratelimit-remaining', '7');
    expect(parseRateLimit(headers)).toEqual({ ignored: [{ header: 'x-ratelimit-remaining', value: '3, 7', reason: 'several values' }] });
  });

  it('quotes at most 100 characters of a junk value', () => {
    const info = parseRateLimit(rl('x'.repeat(500)));
    expect(info?.ignored?.[0]?.value).toBe(`${'x'.repeat(100)}…`);
  });
});

describe('parseServerDate', () => {
  const RECEIVED = Date.UTC(2026, 0, 1, 0, 0, 0, 700);
  const date = (value: string): Headers => new Headers({ date: value });

  it('reads an IMF-fixdate to Unix ms', () => {
    expect(parseServerDate(date('Thu, 01 Jan 2026 00:00:04 GMT'), RECEIVED)).toEqual({ serverDateMs: Date.UTC(2026, 0, 1, 0, 0, 4) });
  });

  it('is empty when there is no Date', () => {
    expect(parseServerDate(new Headers(), RECEIVED)).toEqual({});
  });

  it.each([
    ['garbage', 'yesterday-ish', 'not an HTTP date'],
    ['two Dates', 'Thu, 01 Jan 2026 00:00:04 GMT, Thu, 01 Jan 2026 00:00:05 GMT', 'several values'],
    ['a year and a day behind', 'Tue, 31 Dec 2024 00:00:00 GMT', 'more than a year from the local clock'],
    ['the epoch', 'Thu, 01 Jan 1970 00:00:00 GMT', 'more than a year from the local clock'],
    ['two years ahead', 'Sat, 01 Jan 2028 00:00:00 GMT', 'more than a year from the local clock'],
  ])('ignores %s', (_label, value, reason) => {
    expect(parseServerDate(date(value), RECEIVED)).toEqual({ ignored: { header: 'date', value, reason } });
  });

  it('accepts a skew of hours: learning it is the point', () => {
    expect(parseServerDate(date('Thu, 01 Jan 2026 05:00:00 GMT'), RECEIVED).serverDateMs).toBe(Date.UTC(2026, 0, 1, 5));
  });
});

describe('the response event', () => {
  useNock();

  it('carries the server Date, the local instants around it, and every ignored header', async () => {
    const events: ResponseEvent[] = [];
    const instants = [Date.UTC(2026, 0, 1, 0, 0, 0, 100), Date.UTC(2026, 0, 1, 0, 0, 0, 250)];
    const client = makeClient({ onResponse: (e) => events.push(e), now: () => instants.shift() ?? 0 });
    nock(BASE)
      .get('/v3.1/models')
      .reply(200, { success: true, data: { models: [] } }, { Date: 'Thu, 01 Jan 2026 00:00:03 GMT', 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '-2' });
    await client.models();
    expect(events).toEqual([
      {
        endpoint: 'models',
        status: 200,
        durationMs: expect.any(Number),
        sentAtMs: Date.UTC(2026, 0, 1, 0, 0, 0, 100),
        receivedAtMs: Date.UTC(2026, 0, 1, 0, 0, 0, 250),
        serverDateMs: Date.UTC(2026, 0, 1, 0, 0, 3),
        rateLimit: { limit: 10, ignored: [{ header: 'x-ratelimit-remaining', value: '-2', reason: 'negative' }] },
        ignored: [{ header: 'x-ratelimit-remaining', value: '-2', reason: 'negative' }],
      },
    ]);
  });

  it('lists a garbage Date as ignored and logs it once in debug', async () => {
    const events: ResponseEvent[] = [];
    const lines: string[] = [];
    const client = makeClient({ onResponse: (e) => events.push(e), debug: (l) => lines.push(l), now: () => Date.UTC(2026, 0, 1) });
    nock(BASE)
      .get('/v3.1/models')
      .reply(200, { success: true, data: { models: [] } }, { Date: 'soon' });
    await client.models();
    expect(events[0]).not.toHaveProperty('serverDateMs');
    expect(events[0]?.ignored).toEqual([{ header: 'date', value: 'soon', reason: 'not an HTTP date' }]);
    expect(lines.filter((l) => l.includes('ignored date="soon" (not an HTTP date)'))).toHaveLength(1);
  });
});
