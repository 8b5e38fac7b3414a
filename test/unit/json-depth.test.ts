import { describe, expect, it } from 'vitest';
import { jsonTextOfAnyDepth, MAX_DATA_DEPTH, nestsDeeperThan } from '../../src/util/json-depth.js';

/** `{"a": [[[ … ]]]}`, `levels` objects and lists deep, as text. */
const deepText = (levels: number): string => `{"a":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;

describe('json-depth', () => {
  it('counts objects and lists, not scalars', () => {
    expect([nestsDeeperThan(5, 0), nestsDeeperThan({}, 0), nestsDeeperThan({}, 1), nestsDeeperThan({ a: [{}] }, 2), nestsDeeperThan({ a: [{}] }, 3)]).toEqual([
      false,
      true,
      false,
      true,
      false,
    ]);
    expect(nestsDeeperThan(JSON.parse(deepText(MAX_DATA_DEPTH)))).toBe(false);
    expect(nestsDeeperThan(JSON.parse(deepText(MAX_DATA_DEPTH + 1)))).toBe(true);
  });

  it('writes the same text as JSON.stringify, and data 200,000 levels deep that JSON.stringify cannot', () => {
    const value = { a: [1, 'x"\n', { b: null, c: true, 'd"': [] }], e: {}, f: -12.5 };
    expect(jsonTextOfAnyDepth(value)).toBe(JSON.stringify(value));
    const deep = JSON.parse(deepText(200_000)) as unknown;
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(jsonTextOfAnyDepth(deep)).toBe(deepText(200_000));
    expect(nestsDeeperThan(deep)).toBe(true);
  });
});
