import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../../src/cli/io.js';
import { Ui, type UiOptions } from '../../../src/cli/ui.js';
import { FAKE_LINE_NAME, FAKE_LINE_NAME_SHOWN, OSC_NAME, OSC_NAME_SHOWN, RTL_NAME, RTL_NAME_SHOWN } from '../../helpers/hostile-text.js';

function ui(
  options: Partial<UiOptions>,
  { tty = true, env = {}, ...width }: { tty?: boolean; env?: NodeJS.ProcessEnv; columns?: number | undefined } = {},
): { ui: Ui; stderr: () => string } {
  let stderr = '';
  const io: CliIO = {
    stdout: { write: () => true, isTTY: tty },
    // A terminal of 80 columns, unless the case gives its own width (undefined included).
    stderr: { write: (chunk: string) => (stderr += chunk), isTTY: tty, columns: 'columns' in width ? width.columns : 80 },
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
    ['a terminal of 0 columns', {}, { columns: 0 }, false],
    ['a terminal that gives no width', {}, { columns: undefined }, false],
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

describe('Ui messages carry untrusted text', () => {
  it.each([
    ['info', (u: Ui, m: string) => u.info(m), ''],
    ['warn', (u: Ui, m: string) => u.warn(m), 'warning: '],
    ['error', (u: Ui, m: string) => u.error(m), ''],
  ] as const)('%s shows a message as one line, its controls, newlines and bidi overrides escaped', (_level, say, label) => {
    const { ui: shown, stderr } = ui({ color: false });
    say(shown, `skipped ${OSC_NAME}: ${FAKE_LINE_NAME} ${RTL_NAME}`);
    expect(stderr()).toBe(`${label}skipped ${OSC_NAME_SHOWN}: ${FAKE_LINE_NAME_SHOWN} ${RTL_NAME_SHOWN}\n`);
  });

  it('paints its own label, not the message', () => {
    const { ui: painted, stderr } = ui({});
    painted.warn('careful');
    expect(stderr()).toBe(`${painted.paint.yellow('warning:')} careful\n`);
    expect(painted.paint.level).toBe(1);
  });
});
