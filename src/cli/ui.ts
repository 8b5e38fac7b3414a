import { Chalk, type ChalkInstance } from 'chalk';
import { renderUntrusted } from '../util/untrusted-text.js';
import type { CliIO } from './io.js';

export interface UiOptions {
  json: boolean;
  quiet: boolean;
  color: boolean;
}

/**
 * Everything that is not data goes to stderr through here. Colour only on a
 * terminal and never under NO_COLOR or --no-color; animation only on a
 * terminal that has a width, outside CI, --quiet and --json.
 *
 * A message is one line, rendered whole (renderUntrusted) before it is
 * painted: engine notices, error texts and lines of ours carry file names and
 * the service's words, and a newline in one of them is the name's, never a
 * line of ours. Say several lines with several calls.
 */
export class Ui {
  readonly paint: ChalkInstance;
  /** Spinners and bars may draw. */
  readonly interactive: boolean;

  constructor(
    private readonly io: CliIO,
    readonly options: UiOptions,
  ) {
    const colorAllowed = options.color && !io.env.NO_COLOR && Boolean(io.stderr.isTTY);
    this.paint = new Chalk({ level: colorAllowed ? 1 : 0 });
    this.interactive = Boolean(io.stderr.isTTY) && hasWidth(io.stderr.columns) && !isCi(io.env) && !options.quiet && !options.json;
  }

  /**
   * While bars or a status line are drawn, every message goes above them
   * through this, so that none is written into a line being redrawn (a
   * warning once left a stray character there, and the Ctrl-C notice was
   * drawn over).
   */
  private overlay?: (line: string) => void;

  /** Messages go through `print` until it is given back (undefined). */
  drawingWith(print: ((line: string) => void) | undefined): void {
    this.overlay = print;
  }

  /** Progress and chatter; silenced by --quiet. */
  info(message: string): void {
    if (!this.options.quiet) this.line(renderUntrusted(message));
  }

  warn(message: string): void {
    if (!this.options.quiet) this.line(`${this.paint.yellow('warning:')} ${renderUntrusted(message)}`);
  }

  /** Always shown, even under --quiet. */
  error(message: string): void {
    this.line(renderUntrusted(message));
  }

  private line(text: string): void {
    if (this.overlay) this.overlay(text);
    else this.io.stderr.write(`${text}\n`);
  }
}

/**
 * A terminal that says it has no columns (0: a pty nobody sized, a serial
 * console) cannot be drawn on: ora counts a line as width/0 = Infinity rows
 * and clears them one by one, forever (314 MB of `ESC[1A ESC[0K` in 10
 * minutes). Plain lines need no width.
 */
function hasWidth(columns: number | undefined): boolean {
  return columns !== undefined && columns > 0;
}

function isCi(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.CI && env.CI !== 'false' && env.CI !== '0');
}
