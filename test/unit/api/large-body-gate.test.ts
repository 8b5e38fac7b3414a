import { describe, expect, it } from 'vitest';
import { LargeBodyGate } from '../../../src/api/large-body-gate.js';
import { readBodyCapped } from '../../../src/api/read-body.js';

/** A body the test feeds chunk by chunk. */
function controlledBody(): { body: ReadableStream<Uint8Array>; push: (bytes: number) => void; end: () => void } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return { body, push: (bytes) => controller.enqueue(new Uint8Array(bytes).fill(0x20)), end: () => controller.close() };
}

/** Lets every pending promise chain run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('LargeBodyGate', () => {
  it('lets one answer at a time past the threshold; the next enters when it is released', async () => {
    const gate = new LargeBodyGate(10);
    const releaseFirst = await gate.enter();
    let second: (() => void) | undefined;
    void gate.enter().then((release) => (second = release));
    await settle();
    expect(second).toBeUndefined();
    releaseFirst();
    releaseFirst(); // twice is harmless
    await settle();
    expect(second).toBeTypeOf('function');
  });

  it('a wait ends with its request: an abort rejects and leaves the queue', async () => {
    const gate = new LargeBodyGate(10);
    const release = await gate.enter();
    const abort = new AbortController();
    const waiting = gate.enter(abort.signal);
    abort.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    release();
    // The aborted waiter took nothing: the gate is free again.
    await expect(Promise.race([gate.enter(), settle().then(() => 'still held')])).resolves.toBeTypeOf('function');
  });
});

describe('readBodyCapped with a LargeBodyGate', () => {
  it('small answers read freely; a second answer past the threshold waits for the first to end', async () => {
    const gate = new LargeBodyGate(100);
    const small = controlledBody();
    small.push(50);
    small.end();
    const held = await gate.enter(); // another answer is large right now
    await expect(readBodyCapped(small.body, 1_000, { gate })).resolves.toMatchObject({ complete: true });

    const large = controlledBody();
    let done = false;
    const reading = readBodyCapped(large.body, 1_000, { gate }).then((result) => {
      done = true;
      return result;
    });
    large.push(150);
    large.push(150);
    large.end();
    await settle();
    expect(done).toBe(false);
    held();
    expect(await reading).toEqual({ complete: true, text: ' '.repeat(300) });
  });

  it('an answer that passes its cap while holding the gate gives it back', async () => {
    const gate = new LargeBodyGate(100);
    const bomb = controlledBody();
    bomb.push(150);
    bomb.push(2_000);
    await expect(readBodyCapped(bomb.body, 1_000, { gate })).resolves.toMatchObject({ complete: false });
    await expect(Promise.race([gate.enter(), settle().then(() => 'still held')])).resolves.toBeTypeOf('function');
  });
});
