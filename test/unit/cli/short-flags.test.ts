/**
 * The same short flag on every command that has the long one (issue 55): `-o` for `--out` (`export -o`
 * once answered "unknown option '-o'"). Read from each command's own help, as a person reads it.
 */
import { describe, expect, it } from 'vitest';
import { isolatedEnv, runCli } from '../../helpers/run-cli.js';

const COMMANDS = ['extract', 'watch', 'collect', 'process', 'export', 'check', 'review', 'mcp', 'jobs', 'usage'];

describe('short flags', () => {
  it('every command with --out <…> also takes it as -o', async () => {
    const env = isolatedEnv();
    const withOut: string[] = [];
    for (const command of COMMANDS) {
      const help = await runCli([command, '--help'], { env });
      const line = help.stdout.split('\n').find((text) => /--out </.test(text));
      if (line === undefined) continue;
      withOut.push(command);
      expect(line, `${command} --help`).toMatch(/^\s+-o, --out </);
    }
    expect(withOut).toEqual(expect.arrayContaining(['extract', 'watch', 'collect', 'export']));
  });
});
