import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { writeInTurn } from '../../../src/cli/io.js';

describe('writeInTurn: output waits for a slow reader instead of queueing in memory', () => {
  it('resolves once the reader has taken what was queued, not before', async () => {
    const pipe = new PassThrough({ highWaterMark: 16 });
    let settled = false;
    const written = writeInTurn(pipe, 'x'.repeat(1_000)).then(() => (settled = true));
    // The positive signal: the reader takes the text; only then may the writer go on.
    const taken = await new Promise<string>((resolve) => pipe.once('readable', () => resolve(String(pipe.read()))));
    expect(settled).toBe(false);
    expect(taken).toHaveLength(1_000);
    await written;
    expect(settled).toBe(true);
  });

  it('returns at once when the stream takes the text, or has no events (a test fake)', async () => {
    const roomy = new PassThrough();
    await writeInTurn(roomy, 'ok');
    expect(String(roomy.read())).toBe('ok');
    const chunks: string[] = [];
    await writeInTurn({ write: (chunk: string) => (chunks.push(chunk), false) }, 'fake');
    expect(chunks).toEqual(['fake']);
  });

  it('stops waiting when the reader goes away', async () => {
    const pipe = new PassThrough({ highWaterMark: 16 });
    const written = writeInTurn(pipe, 'x'.repeat(1_000));
    pipe.destroy();
    await expect(written).resolves.toBeUndefined();
  });
});
