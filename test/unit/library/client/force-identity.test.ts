/**
 * What identifies a forced run: the same run again resumes it; another run
 * does not, even where a program gives every run the same command name.
 */
import { describe, expect, it } from 'vitest';
import { forceIdentity } from '../../../../src/library/client/run-access.js';

const program = { cwd: '/work', origin: { command: 'library' } };
const cli = { cwd: '/work', origin: { command: 'extract', commandLine: 'docextract extract in --force --dry-run' } };

describe('forceIdentity', () => {
  it('is the same for the same run asked again', () => {
    expect(forceIdentity(program, 'extract', ['in'], '/work/out')).toBe(forceIdentity(program, 'extract', ['in'], '/work/out'));
  });

  it("tells a program's extract and watch of one folder apart (both are the command `library`)", () => {
    expect(forceIdentity(program, 'extract', ['in'], '/work/out')).not.toBe(forceIdentity(program, 'watch', ['in'], '/work/out'));
  });

  it('differs by inputs, output folder, folder it ran in and --files-from list', () => {
    const base = forceIdentity(program, 'extract', ['in'], '/work/out');
    expect(forceIdentity(program, 'extract', ['other'], '/work/out')).not.toBe(base);
    expect(forceIdentity(program, 'extract', ['in'], '/work/out2')).not.toBe(base);
    expect(forceIdentity({ ...program, cwd: '/elsewhere' }, 'extract', ['in'], '/work/out')).not.toBe(base);
    expect(forceIdentity(program, 'extract', ['in'], '/work/out', ['a.pdf'])).not.toBe(base);
  });

  it('is the same for a dry run and the run it previews', () => {
    const run = { ...cli, origin: { ...cli.origin, commandLine: 'docextract extract in --force' } };
    expect(forceIdentity(cli, 'extract', ['in'], '/work/out')).toBe(forceIdentity(run, 'extract', ['in'], '/work/out'));
  });
});
