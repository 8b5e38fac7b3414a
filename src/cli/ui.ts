import { Chalk, type ChalkInstance } from 'chalk';
import type { CliIO } from './io.js';

export interface UiOptions {
  json: boolean;
  quiet: boolean;
  color: boolean;
}

/**
 * Everything that is not data goes to stderr through here. Colour only on a
 * terminal and never under NO_COLOR or --no-color; animation only on a
 * terminal, outside CI, --quiet and --json.
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
    this.interactive = Boolean(io.stderr.isTTY) && !isCi(io.env) && !options.quiet && !options.json;
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
    if (!this.options.quiet) this.line(message);
  }

  warn(message: string): void {
    if (!this.options.quiet) this.line(`${this.paint.yellow('warning:')} ${message}`);
  }

  /** Always shown, even under --quiet. */
  error(message: string): void {
    this.line(message);
  }

  private line(text: string): void {
    if (this.overlay) this.overlay(text);
    else this.io.stderr.write(`${text}\n`);
  }
}

export function isCi(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.CI && env.CI !== 'false' && env.CI !== '0');
}
