import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { PreviewLeaders } from '../../../src/engine/preview-leaders.js';

describe('PreviewLeaders: which file leads each question in a dry run', () => {
  it('answers each key with its own leader, in memory and past it on disk, a path with a newline included', () => {
    const leaders = new PreviewLeaders(undefined, 2);
    const keys = Array.from({ length: 5 }, (_, i) => `${String(i).repeat(64)} invoice`);
    keys.forEach((key, i) => leaders.set(key, i === 3 ? 'in/odd\nname.pdf' : `in/${i}.pdf`));
    expect(keys.map((key) => leaders.get(key))).toEqual(['in/0.pdf', 'in/1.pdf', 'in/2.pdf', 'in/odd\nname.pdf', 'in/4.pdf']);
    expect(leaders.get('f'.repeat(64))).toBeUndefined();
    leaders.close();
  });

  it('tells apart two keys that share a hash', () => {
    const leaders = new PreviewLeaders(() => 42, 1);
    leaders.set('aa invoice', 'in/a.pdf');
    expect(leaders.get('bb invoice')).toBeUndefined();
    leaders.set('bb invoice', 'in/b.pdf');
    leaders.set('cc invoice', 'in/c.pdf');
    expect(['aa invoice', 'bb invoice', 'cc invoice', 'dd invoice'].map((key) => leaders.get(key))).toEqual(['in/a.pdf', 'in/b.pdf', 'in/c.pdf', undefined]);
    leaders.close();
  });

  it('holds well under 60 bytes a question past its first 10,000 (a map of the strings: ~250)', () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const leaders = new PreviewLeaders();
    const key = (i: number): string => `${i.toString(16).padStart(64, '0')} invoice`;
    for (let i = 0; i < 10_000; i++) leaders.set(key(i), `archive/folder-${i % 100}/scan-${i}.png`);
    gc();
    const before = process.memoryUsage().heapUsed;
    const questions = 100_000;
    for (let i = 10_000; i < 10_000 + questions; i++) leaders.set(key(i), `archive/folder-${i % 100}/scan-${i}.png`);
    gc();
    const perQuestion = (process.memoryUsage().heapUsed - before) / questions;
    expect(leaders.get(key(77_777))).toBe('archive/folder-77/scan-77777.png');
    leaders.close();
    expect(perQuestion).toBeLessThan(60);
  });
});
