import { describe, expect, it } from 'vitest';
import { latencyDrawer } from '../../src/emulator/server.js';

describe('answer times (latencyMs ranges)', () => {
  it('draws each answer time from its range, spread across it, the same for the same seed', () => {
    const draw = latencyDrawer({ documents: { minMs: 1_500, maxMs: 2_500 }, process: 40 }, 7);
    const times = Array.from({ length: 400 }, () => draw('documents'));
    expect(Math.min(...times)).toBeGreaterThanOrEqual(1_500);
    expect(Math.max(...times)).toBeLessThanOrEqual(2_500);
    expect(times.filter((t) => t < 2_000).length).toBeGreaterThan(150);
    expect(times.filter((t) => t >= 2_000).length).toBeGreaterThan(150);
    expect(draw('process')).toBe(40);
    expect(draw('result')).toBe(0);
    const again = latencyDrawer({ documents: { minMs: 1_500, maxMs: 2_500 } }, 7);
    expect(Array.from({ length: 400 }, () => again('documents'))).toEqual(times);
  });
});
