import { describe, expect, it } from 'vitest';
import { barWidthFor, fitParts } from '../../../src/cli/status-line.js';

const parts = [
  { text: '3 pages', priority: 4 },
  { text: '2 credits', priority: 2 },
  { text: '5 requests', priority: 5 },
  { text: 'rate limit; next slot in 4s', priority: 1 },
];

describe('fitParts', () => {
  it('keeps every part when they fit, in their own order', () => {
    expect(fitParts(parts, 200)).toBe('3 pages · 2 credits · 5 requests · rate limit; next slot in 4s');
  });

  it('drops the least important first, whole, never cutting a part', () => {
    expect(fitParts(parts, 40)).toBe('2 credits · rate limit; next slot in 4s');
    expect(fitParts(parts, 27)).toBe('rate limit; next slot in 4s');
    expect(fitParts(parts, 26)).toBe('');
  });

  it('skips empty parts', () => {
    expect(fitParts([{ text: '', priority: 1 }, { text: 'a', priority: 2 }], 10)).toBe('a');
  });
});

describe('barWidthFor', () => {
  it.each([
    [undefined, 24],
    [60, 12],
    [80, 24],
    [120, 40],
  ])('%s columns: a bar of %i', (columns, width) => {
    expect(barWidthFor(columns)).toBe(width);
  });
});
