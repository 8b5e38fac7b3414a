import { renderUntrusted } from '../util/untrusted-text.js';
import type { CliContext } from './context.js';

/** Data goes to stdout: JSON under --json, the human rendering otherwise. */
export function printData(ctx: CliContext, value: unknown, human: () => string): void {
  if (ctx.options.json) {
    ctx.io.stdout.write(`${JSON.stringify(value)}\n`);
  } else {
    const text = human();
    ctx.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }
}

/**
 * Lines for a person, each rendered whole (renderUntrusted), then joined: a
 * line names files and quotes the service, and a newline of theirs must not
 * start a line of ours. Build human output as a list of lines and give it here.
 */
export function renderLines(lines: readonly string[]): string {
  return lines.map(renderUntrusted).join('\n');
}

/** Two aligned columns, for key/value listings; a value may be the service's (health, process). */
export function formatPairs(pairs: [string, string][]): string {
  const shown = pairs.map(([key, value]): [string, string] => [renderUntrusted(key), renderUntrusted(value)]);
  const width = Math.max(0, ...shown.map(([key]) => key.length));
  return shown.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join('\n');
}
