import { afterEach, describe, expect, it } from 'vitest';
import { localInstant } from '../../src/util/local-time.js';

const saved = process.env.TZ;
afterEach(() => {
  if (saved === undefined) delete process.env.TZ;
  else process.env.TZ = saved;
});

describe('localInstant', () => {
  it.each([
    ['UTC', '2026-11-24 22:24:03 UTC'],
    ['Europe/Paris', '2026-11-24 23:24:03 GMT+1'],
    ['America/New_York', '2026-11-24 17:24:03 EST'],
  ])('in %s: the local date and time with the zone, the way waits show local time too', (zone, shown) => {
    process.env.TZ = zone;
    expect(localInstant(Date.UTC(2026, 10, 24, 22, 24, 3))).toBe(shown);
  });
});
