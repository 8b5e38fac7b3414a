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

  /** Progress and chatter; silenced by --quiet. */
  info(message: string): void {
    if (!this.options.quiet) this.io.stderr.write(`${message}\n`);
  }

  warn(message: string): void {
    if (!this.options.quiet) this.io.stderr.write(`${this.paint.yellow('warning:')} ${message}\n`);
  }

  /** Always shown, even under --quiet. */
  error(message: string): void {
    this.io.stderr.write(`${message}\n`);
  }
}

export function isCi(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.CI && env.CI !== 'false' && env.CI !== '0');
}
