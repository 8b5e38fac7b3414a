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

/** Two aligned columns, for key/value listings. */
export function formatPairs(pairs: [string, string][]): string {
  const width = Math.max(0, ...pairs.map(([key]) => key.length));
  return pairs.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join('\n');
}
