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

describe('a source not moved (issue 51)', () => {
  it('is said on stderr with its name escaped: a name with a newline and an override forges no line of ours', async () => {
    const written: string[] = [];
    const stream = { write: (text: string) => written.push(text), isTTY: false } as unknown as CliIO['stderr'];
    const io: CliIO = { stdout: stream, stderr: stream, stdin: Readable.from([]) as CliIO['stdin'], env: {}, cwd: '/work' };
    const ctx = new CliContext({ io, clock: new FakeClock(0), args: [] }, { json: false, quiet: false, color: false, debug: false, insecure: false });
    const display = await WatchDisplay.create(ctx, 'inbox');
    const file = 'sub/p.png\ncomplete: alice.png\u202e';
    display.notMoved({
      file,
      to: '/srv/done',
      code: 'move_unsafe',
      folder: '/srv/inbox/sub',
      reason: 'it belongs to another user (uid 4242)',
      message: `${file}: not moved to /srv/done: /srv/inbox/sub: it belongs to another user (uid 4242) (move_unsafe); it stays where it is`,
    });
    display.stop();
    expect(written.join('')).toBe(
      'warning: sub/p.png\\ncomplete: alice.png\\u202e: not moved to /srv/done: /srv/inbox/sub: it belongs to another user (uid 4242) (move_unsafe); it stays where it is\n',
    );
  });
});
