import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../helpers/fake-clock.js';

describe('FakeClock', () => {
  it('starts at the given instant and moves only when advanced', async () => {
    const clock = new FakeClock(1000);
    expect(clock.now()).toBe(1000);
    await clock.advance(250);
    expect(clock.now()).toBe(1250);
    expect(new FakeClock().now()).toBe(1_700_000_000_000);
  });

  it('resolves sleepers in time order, each at its own instant, with microtasks in between', async () => {
    const clock = new FakeClock(0);
    const seen: string[] = [];
    void clock.sleep(300).then(() => seen.push(`b@${clock.now()}`));
    void clock.sleep(100).then(async () => {
      seen.push(`a@${clock.now()}`);
      await Promise.resolve();
      await clock.sleep(100);
      seen.push(`c@${clock.now()}`);
    });
    expect(clock.pendingTimers()).toBe(2);
    await clock.advance(250);
    expect(seen).toEqual(['a@100', 'c@200']);
    expect(clock.now()).toBe(250);
    await clock.advance(50);
    expect(seen).toEqual(['a@100', 'c@200', 'b@300']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('rejects an aborted sleep with the reason and forgets its timer', async () => {
    const clock = new FakeClock(0);
    const controller = new AbortController();
    const sleeping = clock.sleep(1000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(sleeping).rejects.toThrow('stop');
    expect(clock.pendingTimers()).toBe(0);
    await expect(clock.sleep(10, controller.signal)).rejects.toThrow('stop');
  });

  it('runAll follows chains of timers and stops at a limit', async () => {
    const clock = new FakeClock(0);
    let ticks = 0;
    const loop = async (): Promise<void> => {
      for (;;) {
        await clock.sleep(1000);
        ticks++;
      }
    };
    void loop();
    await clock.runAll(10_500);
    expect(ticks).toBe(10);
    expect(clock.now()).toBe(10_500);
    expect(clock.pendingTimers()).toBe(1);
  });
});
