import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { completionTable } from '../../src/cli/completion/completion-table.js';
import { COMPLETION_TYPES_FILE } from '../../src/config/state-dir.js';
import { keepOpenJobsJournal, OPEN_JOB_IDS } from '../helpers/open-jobs-journal.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';

/** The bash script as `docextract completion bash` prints it with `env`. */
async function bashScript(env: NodeJS.ProcessEnv): Promise<string> {
  const run = await runCli(['completion', 'bash'], { env });
  expect(run.code, run.stderr).toBe(0);
  return run.stdout;
}

/** What the script's function puts in COMPREPLY for `line` (the cursor at its end), one bash, no terminal. */
function bashCandidates(script: string, line: string, env: NodeJS.ProcessEnv): string[] {
  const folder = mkdtempSync(join(tmpdir(), 'docextract-script-'));
  writeFileSync(join(folder, 'completion.bash'), script);
  const run = spawnSync(
    'bash',
    [
      '--norc',
      '--noprofile',
      '-c',
      'source ./completion.bash; COMP_LINE=$1; COMP_POINT=${#1}; _docextract_complete; printf "%s\\n" "${COMPREPLY[@]}"',
      'bash',
      line,
    ],
    { cwd: folder, env, encoding: 'utf8' },
  );
  expect(run.stderr).toBe('');
  return run.stdout.split('\n').filter(Boolean);
}

function keepTypes(stateDir: string, names: string[]): void {
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(join(stateDir, COMPLETION_TYPES_FILE), names.map((name) => `${name}\t${name} documents\n`).join(''));
}

describe('the bash completion script', () => {
  it('reads the document types from the default state folder baked in when printed, or from DOCEXTRACT_STATE_DIR at Tab time', async () => {
    const env = isolatedEnv();
    const script = await bashScript({ ...env, DOCEXTRACT_STATE_DIR: join(env.HOME as string, 'not-the-default') });
    keepTypes(join(env.XDG_STATE_HOME as string, 'docextract'), ['invoice', 'id_card']);
    // At Tab time XDG_STATE_HOME is no longer set: the folder resolved when the script was printed is used.
    const tabEnv = { PATH: env.PATH, HOME: env.HOME };
    expect(bashCandidates(script, 'docextract extract --model i', tabEnv)).toEqual(['invoice', 'id_card']);
    const other = join(env.HOME as string, 'other-state');
    keepTypes(other, ['payslip']);
    expect(bashCandidates(script, 'docextract extract --model ', { ...tabEnv, DOCEXTRACT_STATE_DIR: other })).toEqual(['payslip']);
  });

  it('offers exactly the words of each place in the line', async () => {
    const env = isolatedEnv();
    const script = await bashScript(env);
    keepTypes(join(env.XDG_STATE_HOME as string, 'docextract'), ['invoice', 'id_card']);
    const offered = (line: string): string[] => bashCandidates(script, line, { PATH: env.PATH, HOME: env.HOME });
    expect(offered('docextract ex')).toEqual(['extract', 'export']);
    expect(offered('docextract config ')).toEqual(['set', 'get', 'unset', 'list', 'profiles', 'path', 'help']);
    expect(offered('docextract config get mod')).toEqual(['model', 'models']);
    expect(offered('docextract config set models ids/**=id_card;in')).toEqual(['invoice']);
    expect(offered('docextract completion ')).toEqual(['bash', 'zsh', 'fish']);
    expect(offered('cd x && docextract --profile work extract --sch')).toEqual(['--schema']);
    // Readline replaces only what follows the last `=`: the candidate is that part.
    expect(offered('docextract watch in --model=inv')).toEqual(['invoice']);
    expect(offered("docextract extract --model 'ids/**=id")).toEqual(['ids/**=id_card']);
    expect(offered('docextract extract --schema inv')).toEqual(['invoice=']);
    expect(offered('docextract health --max')).toEqual([]);
  });
});

describe('open job ids after collect (issue 55)', () => {
  it('are the jobs `docextract jobs` lists as open, read from the journal by the script itself, and nothing a file name holds', async () => {
    const env = isolatedEnv();
    const stateDir = join(env.XDG_STATE_HOME as string, 'docextract');
    keepOpenJobsJournal(stateDir, Date.now());
    const listed = await runCli(['jobs', '--json'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    const open = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; parent_job_id?: string; state?: string })
      .filter((line) => line.kind === 'job' && line.state !== 'expired')
      .map((line) => line.parent_job_id);
    expect(open.sort()).toEqual([...OPEN_JOB_IDS].sort());
    const script = await bashScript(env);
    const offered = (line: string): string[] => bashCandidates(script, line, { PATH: env.PATH, HOME: env.HOME, DOCEXTRACT_STATE_DIR: stateDir });
    expect(offered('docextract collect ').sort()).toEqual([...OPEN_JOB_IDS].sort());
    expect(offered('docextract collect job_open_')).toEqual(expect.arrayContaining(['job_open_a', 'job_open_b']));
    expect(offered('docextract collect job_open_')).toHaveLength(2);
    expect(offered('docextract --profile w collect --out x job_')).not.toContain('job_planted');
    expect(offered('docextract --profile w collect --out x job_n')).toEqual(['job_named_badly']);
  });
});

describe('the completion table', () => {
  it('is read from the Commander program: a flag added to a command is completed, by the name of its value', () => {
    const program = new Command('docextract').option('--profile <name>', 'a profile');
    program.command('extract').argument('<inputs...>').option('--spool <dir>', 'where to spool').option('--fast', 'no value');
    const extract = completionTable(program).commands.find((command) => command.path === 'docextract extract');
    expect(extract?.flags.map((flag) => flag.value)).toEqual(['--spool', '--fast', '--help', '--profile']);
    expect(extract?.valueKinds).toEqual({ '--spool': 'dirs', '--profile': 'profile' });
    expect(extract?.args).toEqual(['files']);
    expect(extract?.variadic).toBe(true);
  });
});
