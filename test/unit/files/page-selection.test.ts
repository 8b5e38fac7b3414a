import { describe, expect, it } from 'vitest';
import { formatPages, isWholeDocument, pageRanges, parsePageSelection, resolvePageSelection } from '../../../src/files/page-selection.js';
import { PageRules } from '../../../src/engine/page-rules.js';

function pagesOf(text: string, pageCount: number): number[] | string {
  const resolved = resolvePageSelection(parsePageSelection(text), pageCount);
  return resolved.ok ? resolved.pages : resolved.problem;
}

describe('page selections', () => {
  it.each([
    ['1', 6, [1]],
    ['1-3,7', 9, [1, 2, 3, 7]],
    ['1,-1', 6, [1, 6]],
    ['-1', 6, [6]],
    ['-3--1', 6, [4, 5, 6]],
    ['2--1', 6, [2, 3, 4, 5, 6]],
    ['all', 3, [1, 2, 3]],
    [' ALL ', 2, [1, 2]],
    ['3,1,2-3', 4, [1, 2, 3]],
    ['1, 2', 4, [1, 2]],
    ['1,-1', 1, [1]],
  ] as const)('%j of %i pages is %j (ascending, each page once)', (text, count, pages) => {
    expect(pagesOf(text, count)).toEqual(pages);
  });

  it.each([
    ['40', 6, 'page 40 is not in it'],
    ['-7', 6, 'page -7 is not in it'],
    ['5-9', 6, 'page 9 is not in it'],
    ['5--3', 6, 'the range 5--3 is empty in it (page 5 to page 4)'],
  ] as const)('%j of %i pages names what the document lacks', (text, count, problem) => {
    expect(pagesOf(text, count)).toBe(problem);
  });

  it.each(['', ' ', '0', '-0', '1-', 'x', '1-3-5', '3-1', '-1--3', '-2-3', '1,,2', '1.5', '+1'])('%j is malformed', (text) => {
    expect(() => parsePageSelection(text)).toThrow();
  });

  it.each([
    ['', 'empty page selection; give pages such as 1, 1-3,7, 1,-1 or all'],
    ['1, x ', '"x" in "1, x" is not a page or a range; pages are 1-based (1, 1-3, -1 for the last page)'],
    ['2, 3 - 1', 'the range "3 - 1" runs backwards; write it as 1-3'],
    [
      ' -2-3 ',
      'the range "-2-3" starts from the end and ends from the start; write both ends from the same side, or the start first (2--1: page 2 to the last)',
    ],
  ])('%j is refused, naming the part as it was written', (text, message) => {
    expect(() => parsePageSelection(text)).toThrow(new Error(message));
  });

  it('writes pages as the shortest selection', () => {
    expect(formatPages([1, 2, 3, 7])).toBe('1-3,7');
    expect(formatPages([1, 12])).toBe('1,12');
    expect(formatPages([4])).toBe('4');
    expect(formatPages([2, 3, 5, 6, 9])).toBe('2-3,5-6,9');
  });

  it('pages as a person reads them: ranges, in order, each page once', () => {
    expect(pageRanges(Array.from({ length: 151 }, (_, i) => i + 1))).toBe('1-151');
    expect(pageRanges([7, 1, 3, 2, 3, 9, 10])).toBe('1-3, 7, 9-10');
    expect(pageRanges([4])).toBe('4');
  });

  it('every page in order is the whole document', () => {
    expect(isWholeDocument([1, 2, 3], 3)).toBe(true);
    expect(isWholeDocument([1, 2], 3)).toBe(false);
    expect(isWholeDocument([1, 3], 2)).toBe(false);
  });
});

describe('page rules', () => {
  it('the first matching glob chooses, then the bare default, then every page', () => {
    const rules = PageRules.parse(['invoices/**=1,-1', 'statements/**=all', '2']);
    const text = (path: string): string => {
      const selection = rules.selectionFor(path);
      return selection.all ? 'all' : selection.text;
    };
    expect(text('invoices/a.pdf')).toBe('1,-1');
    expect(text('statements\\b.pdf')).toBe('all');
    expect(text('other/c.pdf')).toBe('2');
    expect(PageRules.parse(['invoices/**=1']).selectionFor('x.pdf').all).toBe(true);
  });

  it('the config form separates rules with ";" (selections hold commas)', () => {
    const rules = PageRules.parseList('invoices/**=1,-1; 1-2');
    expect(rules.rules.map((rule) => rule.glob)).toEqual(['invoices/**']);
    expect(rules.selectionFor('a.pdf')).toMatchObject({ all: false, text: '1-2' });
  });

  it.each([['=1'], ['a/**='], ['1', '2'], ['a/**=1-x']])('refuses %j', (...specs) => {
    expect(() => PageRules.parse(specs)).toThrow();
  });
});
