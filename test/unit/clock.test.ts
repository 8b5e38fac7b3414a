import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/util/clock.js';

describe('systemClock.sleep', () => {
  it('rejects with the abort reason when aborted', async () => {
    const controller = new AbortController();
    const pending = systemClock.sleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });
});
