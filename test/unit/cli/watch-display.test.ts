import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CliContext } from '../../../src/cli/context.js';
import type { CliIO } from '../../../src/cli/io.js';
import { WatchDisplay } from '../../../src/cli/watch-display.js';
import { FakeClock } from '../../helpers/fake-clock.js';
import { FakeTty } from '../../helpers/fake-tty.js';

const ESC = '\u001b';

afterEach(() => {
  vi.useRealTimers();
});

describe('the watch status line', () => {
  it('names the watched folder escaped: a folder named with OSC sequences and an override retitles nothing', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const tty = new FakeTty(120);
    const io: CliIO = { stdout: tty, stderr: tty, stdin: Readable.from([]) as CliIO['stdin'], env: {}, cwd: '/work' };
    const ctx = new CliContext(
      { io, clock: new FakeClock(1_700_000_000_000), args: [] },
      { json: false, quiet: false, color: false, debug: false, insecure: false },
    );
    const display = await WatchDisplay.create(ctx, 'inbox\x1b]0;pwned\x07\u202exodni');
    display.watching();
    vi.advanceTimersByTime(200);
    const drawn = tty.mark();
    display.stop();
    vi.useRealTimers();
    expect(tty.raw).not.toContain(`${ESC}]`);
    expect(tty.raw).not.toContain('\u202e');
    expect((await tty.screen(drawn))[0]).toMatch(/watching inbox\\x1b\]0;pwned\\x07\\u202exodni/);
  });
});
