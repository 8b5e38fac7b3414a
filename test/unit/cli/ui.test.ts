import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../../src/cli/io.js';
import { Ui, type UiOptions } from '../../../src/cli/ui.js';

function ui(options: Partial<UiOptions>, { tty = true, env = {} }: { tty?: boolean; env?: NodeJS.ProcessEnv } = {}): { ui: Ui; stderr: () => string } {
  let stderr = '';
  const io: CliIO = {
    stdout: { write: () => true, isTTY: tty },
    stderr: { write: (chunk: string) => (stderr += chunk), isTTY: tty },
    stdin: Readable.from([]) as CliIO['stdin'],
    env,
    cwd: '/',
  };
  return { ui: new Ui(io, { json: false, quiet: false, color: true, ...options }), stderr: () => stderr };
}

describe('Ui', () => {
  it.each([
    ['a terminal', {}, { tty: true }, true],
    ['stderr not a terminal', {}, { tty: false }, false],
    ['CI', {}, { env: { CI: 'true' } }, false],
    ['CI=false', {}, { env: { CI: 'false' } }, true],
    ['--quiet', { quiet: true }, {}, false],
    ['--json', { json: true }, {}, false],
  ] as const)('animates progress only on a terminal outside CI, --quiet and --json: %s', (_case, options, io, expected) => {
    expect(ui(options, io).ui.interactive).toBe(expected);
  });

  it.each([
    ['a terminal', {}, {}, 1],
    ['NO_COLOR', {}, { env: { NO_COLOR: '1' } }, 0],
    ['--no-color', { color: false }, {}, 0],
    ['stderr not a terminal', {}, { tty: false }, 0],
  ] as const)('colours only when allowed: %s', (_case, options, io, level) => {
    expect(ui(options, io).ui.paint.level).toBe(level);
  });

  it('keeps errors under --quiet and drops the chatter', () => {
    const { ui: quiet, stderr } = ui({ quiet: true });
    quiet.info('progress');
    quiet.warn('careful');
    quiet.error('broken');
    expect(stderr()).toBe('broken\n');
  });
});
