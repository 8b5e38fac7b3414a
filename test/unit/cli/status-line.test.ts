import { describe, expect, it } from 'vitest';
import { barWidthFor, displayColumns, fitParts, wrapToWidth } from '../../../src/cli/status-line.js';

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
    expect(
      fitParts(
        [
          { text: '', priority: 1 },
          { text: 'a', priority: 2 },
        ],
        10,
      ),
    ).toBe('a');
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

describe('wrapToWidth', () => {
  it('breaks a long line at spaces, each piece narrower than the terminal, nothing lost', () => {
    const line =
      'partial   invoices/2024/supplier-statement-march.pdf -> out/invoices/2024/supplier-statement-march.pdf.json (missing pages 4, 5, 6; docextract collect job_0123456789abcdef)';
    const lines = wrapToWidth(line, 60);
    expect(lines.every((piece) => piece.length <= 59)).toBe(true);
    expect(lines.join(' ').replace(/\s+/g, ' ')).toBe(line.replace(/\s+/g, ' '));
    expect(lines.at(-1)).toContain('job_0123456789abcdef)');
  });

  it('counts columns as a terminal does: a colour takes none and is never cut, a CJK character takes two', () => {
    const green = '\u001b[32mcomplete\u001b[39m';
    expect(wrapToWidth(`${green}  ${'a'.repeat(60)}`, 80)).toEqual([`${green}  ${'a'.repeat(60)}`]);
    const wide = wrapToWidth(`complete  ${'請求書'.repeat(20)}.pdf`, 40);
    expect(wide.every((piece) => displayColumns(piece) <= 39)).toBe(true);
    expect(wide.join('')).toBe(`complete  ${'請求書'.repeat(20)}.pdf`);
  });

  it('leaves a short line alone', () => {
    expect(wrapToWidth('complete  a.png -> out/a.png.json (1 page)', 120)).toEqual(['complete  a.png -> out/a.png.json (1 page)']);
  });
});
