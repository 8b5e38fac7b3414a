import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { completeWords } from '../../../src/cli/completion/complete-words.js';
import { readlineWord } from '../../../src/cli/completion/readline-word.js';
import { splitCommandLine } from '../../../src/cli/completion/split-line.js';
import { accountId } from '../../../src/config/account-id.js';
import { rememberModelNames } from '../../../src/store/model-names-cache.js';
import { expectNothingRaw, HOSTILE_SERVICE_TEXT, HOSTILE_SERVICE_TEXT_SHOWN, OSC_NAME, RTL_NAME } from '../../helpers/hostile-text.js';
import { isolatedEnv, runCli } from '../../helpers/run-cli.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';
const URL = 'http://127.0.0.1:9';
const WORD_BREAKS = '"\'><=;|&(:';

/** An environment whose state folder keeps a models answer for KEY at URL. */
function envWithTypes(names: string[]): NodeJS.ProcessEnv {
  const env = isolatedEnv({ DOCEXTRACT_API_KEY: KEY, DOCEXTRACT_BASE_URL: URL, DOCEXTRACT_STATE_DIR: mkdtempSync(join(tmpdir(), 'docextract-state-')) });
  rememberModelNames(
    env.DOCEXTRACT_STATE_DIR as string,
    accountId(URL, KEY),
    names.map((name) => ({ name, description: `${name} documents` })),
    0,
  );
  return env;
}

/** What `docextract __complete zsh -- docextract <words>` answers: candidates, then the directive line. */
async function complete(words: string[], env = envWithTypes(['invoice', 'id_card'])): Promise<{ values: string[]; directive: string }> {
  const run = await runCli(['__complete', 'zsh', '--', 'docextract', ...words], { env });
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.replace(/\n$/, '').split('\n');
  return { values: lines.slice(0, -1).map((line) => line.split('\t')[0] as string), directive: lines[lines.length - 1] as string };
}

describe('docextract __complete', () => {
  it('offers commands, the subcommands of config, and no hidden command', async () => {
    expect((await complete(['ex'])).values).toEqual(['extract', 'export']);
    expect((await complete([''])).values).not.toContain('__complete');
    expect((await complete(['config', ''])).values).toEqual(['set', 'get', 'unset', 'list', 'profiles', 'path', 'help']);
  });

  it('offers the flags of the command being typed and the global ones, not those of other commands', async () => {
    const extract = (await complete(['extract', '--'])).values;
    expect(extract).toEqual(expect.arrayContaining(['--max-credits', '--dry-run', '--model', '--out', '--json', '--base-url']));
    const health = (await complete(['health', '--'])).values;
    expect(health).toContain('--json');
    expect(health).not.toContain('--max-credits');
  });

  it('offers setting names after config set, get and unset, and document types as the value of model', async () => {
    expect((await complete(['config', 'set', 'rate'])).values).toEqual(['rate-limit']);
    expect((await complete(['config', 'get', 'mod'])).values).toEqual(['model', 'models']);
    expect((await complete(['config', 'set', 'model', 'in'])).values).toEqual(['invoice']);
    expect((await complete(['config', 'set', 'models', 'ids/**=id_card;in'])).values).toEqual(['ids/**=id_card;invoice']);
  });

  it('offers document types for --model, alone, after GLOB= and after --model=, from the kept answer of this account only', async () => {
    expect((await complete(['extract', '--model', 'i'])).values).toEqual(['invoice', 'id_card']);
    expect((await complete(['extract', '--model', 'ids/**=id'])).values).toEqual(['ids/**=id_card']);
    expect((await complete(['watch', 'in', '--model=inv'])).values).toEqual(['--model=invoice']);
    // The line's own --base-url names another account: nothing kept for it.
    expect((await complete(['--base-url', 'http://127.0.0.1:10', 'extract', '--model', 'i'])).values).toEqual([]);
    expect((await complete(['extract', '--model', 'i'], isolatedEnv({ DOCEXTRACT_API_KEY: KEY }))).values).toEqual([]);
  });

  it('leaves paths to the shell: files for inputs, folders for --out and review, TYPE= then a file for --schema', async () => {
    expect((await complete(['extract', 'sc'])).directive).toBe(':files\t');
    expect((await complete(['extract', '--out', 'sc'])).directive).toBe(':dirs\t');
    expect((await complete(['review', ''])).directive).toBe(':dirs\t');
    expect(await complete(['extract', '--schema', 'inv'])).toEqual({ values: ['invoice='], directive: ':nospace\t' });
    expect((await complete(['extract', '--schema', 'invoice=sch'])).directive).toBe(':files\tinvoice=');
    expect((await complete(['extract', '--out=sc'])).directive).toBe(':dirs\t--out=');
  });

  it('answers bash with the part of each word readline replaces (after = or :), without descriptions', async () => {
    const env = envWithTypes(['invoice']);
    const run = await runCli(['__complete', 'bash', '--', 'docextract extract --model ids/**=inv', WORD_BREAKS], { env });
    expect(run.stdout).toBe('invoice\n:none\t\n');
    const out = await runCli(['__complete', 'bash', '--', 'docextract extract --out=sc', WORD_BREAKS], { env });
    expect(out.stdout).toBe(':dirs\tsc\n');
  });

  it('offers no document type whose name the service sent with controls or shell syntax, and shows descriptions with their controls escaped', async () => {
    const env = isolatedEnv({ DOCEXTRACT_API_KEY: KEY, DOCEXTRACT_BASE_URL: URL, DOCEXTRACT_STATE_DIR: mkdtempSync(join(tmpdir(), 'docextract-state-')) });
    const kept = [
      { name: 'invoice', description: `bills ${HOSTILE_SERVICE_TEXT}` },
      { name: 'inv\ninvoice_fake' },
      { name: `in${OSC_NAME}` },
      { name: `in${RTL_NAME}` },
      { name: 'inv;rm -rf ~' },
      { name: 'inv$(id)' },
    ];
    rememberModelNames(env.DOCEXTRACT_STATE_DIR as string, accountId(URL, KEY), kept, 0);
    const zsh = await runCli(['__complete', 'zsh', '--', 'docextract', 'extract', '--model', 'in'], { env });
    expectNothingRaw(zsh.stdout);
    // The description's newline is a space (one line), its other controls escaped.
    expect(zsh.stdout).toBe(`invoice\tbills ${HOSTILE_SERVICE_TEXT_SHOWN.replace('\\n', ' ')}\n:none\t\n`);
    const bash = await runCli(['__complete', 'bash', '--', 'docextract extract --model in', WORD_BREAKS], { env });
    expect(bash.stdout).toBe('invoice\n:none\t\n');
  });

  it('refuses a shell it has no script for, as a usage error', async () => {
    const run = await runCli(['completion', 'tcsh'], { env: isolatedEnv() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('bash, zsh, fish');
  });
});

describe('completion reads the Commander program', () => {
  it('offers a flag added to the program later, with no edit to completion (a global --profile <name>)', async () => {
    const program = new Command('docextract').option('--json');
    program.command('whoami').option('--verbose');
    program.option('--profile <name>', 'settings profile');
    const sources = { documentTypes: async () => [], openJobs: async () => [], profiles: () => [] };
    expect((await completeWords(program, ['whoami', '--pro'], sources)).candidates.map((c) => c.value)).toEqual(['--profile']);
    // Its value is not taken for a command name.
    expect((await completeWords(program, ['--profile', 'b', 'who'], sources)).candidates.map((c) => c.value)).toEqual(['whoami']);
  });

  it('passes the global flags of the line to the document-type source', async () => {
    const program = new Command('docextract').option('--base-url <url>');
    program.command('extract').option('--model <rule>');
    const seen: Record<string, string>[] = [];
    await completeWords(program, ['--base-url', 'https://b.example', 'extract', '--model', ''], {
      documentTypes: async (globals) => (seen.push({ ...globals }), []),
      openJobs: async () => [],
      profiles: () => [],
    });
    expect(seen).toEqual([{ baseUrl: 'https://b.example' }]);
  });
});

describe('reading the line as bash gives it', () => {
  it('splits quotes and escapes, keeps the last command of a list, and ends with the word being typed', () => {
    expect(splitCommandLine("docextract extract --model 'ids/**=inv")).toEqual({ words: ['docextract', 'extract', '--model', 'ids/**=inv'], openQuote: "'" });
    expect(splitCommandLine('cd x && docextract "my files"/a\\ b ').words).toEqual(['docextract', 'my files/a b', '']);
  });

  it('finds the text readline replaces after the last word break, outside quotes', () => {
    expect(readlineWord('docextract extract --model=inv', WORD_BREAKS)).toBe('inv');
    expect(readlineWord("docextract extract --model 'ids/**=inv", WORD_BREAKS)).toBe('ids/**=inv');
    expect(readlineWord('docextract ex', WORD_BREAKS)).toBe('ex');
  });
});
