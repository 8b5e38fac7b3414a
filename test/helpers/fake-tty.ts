import { clearLine, clearScreenDown, cursorTo, moveCursor, type Direction } from 'node:readline';
// @xterm/headless is CommonJS; its Terminal is a property of the module object.
import xterm from '@xterm/headless';
import type { OutputStream } from '../../src/cli/io.js';

/**
 * A terminal for the display to draw on: a stream with isTTY, columns and the
 * cursor methods of a tty.WriteStream (ora calls them), recording every byte.
 * `mark()` remembers how much had been written at a chosen instant; `screen()`
 * replays that much into a real terminal emulator (xterm.js, headless) and
 * returns the lines a person would see. The replay runs on real timers (xterm
 * parses on them), so take marks while fake timers drive the display, and read
 * screens after `vi.useRealTimers()`.
 */
export class FakeTty implements OutputStream {
  readonly isTTY = true;
  private written = '';

  constructor(
    readonly columns = 100,
    readonly rows = 12,
  ) {}

  write = (chunk: string | Uint8Array, encodingOrCallback?: unknown, callback?: unknown): boolean => {
    this.written += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const done = typeof encodingOrCallback === 'function' ? encodingOrCallback : callback;
    if (typeof done === 'function') (done as () => void)();
    return true;
  };

  cursorTo(x: number, y?: number | (() => void), callback?: () => void): boolean {
    return cursorTo(this.asStream(), x, typeof y === 'number' ? y : undefined, typeof y === 'function' ? y : callback);
  }

  moveCursor(dx: number, dy: number, callback?: () => void): boolean {
    return moveCursor(this.asStream(), dx, dy, callback);
  }

  clearLine(dir: Direction, callback?: () => void): boolean {
    return clearLine(this.asStream(), dir, callback);
  }

  clearScreenDown(callback?: () => void): boolean {
    return clearScreenDown(this.asStream(), callback);
  }

  /** Everything written so far, escape sequences included. */
  get raw(): string {
    return this.written;
  }

  /** The position to read the screen at later. */
  mark(): number {
    return this.written.length;
  }

  /** The visible lines once the first `upTo` characters had been written (all by default), without trailing blank lines. */
  async screen(upTo = this.written.length): Promise<string[]> {
    // convertEol: a terminal's line discipline turns "\n" into "\r\n" on output (onlcr).
    const terminal = new xterm.Terminal({ cols: this.columns, rows: this.rows, allowProposedApi: true, convertEol: true });
    await new Promise<void>((resolve) => terminal.write(this.written.slice(0, upTo), resolve));
    const buffer = terminal.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? '');
    terminal.dispose();
    while (lines.length > 0 && lines.at(-1) === '') lines.pop();
    return lines;
  }

  private asStream(): NodeJS.WritableStream {
    return this as unknown as NodeJS.WritableStream;
  }
}

/** A stream that is not a terminal (a pipe or a file), recording what is written. */
export class PipeStream implements OutputStream {
  readonly isTTY = false;
  text = '';
  write = (chunk: string): boolean => {
    this.text += chunk;
    return true;
  };
}
