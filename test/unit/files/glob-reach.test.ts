import { describe, expect, it } from 'vitest';
import { globLeavesItsBase } from '../../../src/files/glob-reach.js';

describe('globLeavesItsBase: a glob is searched only when its text proves it stays below where it starts', () => {
  it.each([
    ['{x,..}/*.pdf', 'braces holding ..'],
    ['{.,..}/**', 'braces holding ..'],
    ['sub/../../*', 'a .. segment'],
    ['in/*/../../x/*.pdf', 'a .. segment after a dynamic one'],
    ['*/..', 'a last .. segment'],
    ['{/etc,x}/*.pdf', 'an absolute path in braces'],
    ['{a,b/../..}/*', 'a / in braces'],
    ['.{.,}/secret/*', '.. spelled only once expanded'],
    ['{.,x}{.,y}/*', 'dots only, once expanded'],
    ['{+..0}x/*', 'a range, which can expand to a /'],
    ['{a..z}/*.pdf', 'a range'],
    ['\\.\\./*.pdf', 'an escaped ..'],
    ['{x,\\.\\.}/*', 'an escaped .. in braces'],
    ['@(..)/*', 'an extglob'],
    ['+(x|y)/*.pdf', 'an extglob'],
    ['a{b/..', 'an unclosed brace before a /'],
  ])('refuses %s (%s)', (pattern) => {
    expect(globLeavesItsBase(pattern)).toEqual(expect.any(String));
  });

  it('refuses a pattern longer than any path, unread', () => {
    expect(globLeavesItsBase(`${'{a,b}'.repeat(1_000)}/*.pdf`)).toContain('PATH_MAX');
  });

  it.each([
    'in/**/*.pdf',
    '*.{pdf,png}',
    '{2023,2024}/*.pdf',
    'scans/{a,b}.{pdf,png}',
    '/abs/in/**/*.pdf',
    'brackets [1].pdf',
    'x?.pdf',
    'a..b/*.pdf',
    'v1.{2,3}/*',
  ])('lets %s through', (pattern) => {
    expect(globLeavesItsBase(pattern)).toBeUndefined();
  });
});
