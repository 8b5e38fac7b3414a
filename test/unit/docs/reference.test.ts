/**
 * The generated reference (docs/reference.md) and manual page (man/docextract.1) are the code's, not
 * written beside it (issue 55): the committed files are what scripts/build-reference.js makes from
 * dist/ (the global setup builds it), and every command, flag, setting and error code is in them.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildReference, referenceFacts, REFERENCE_FILES, type ReferenceFacts } from '../../../scripts/reference/index.js';
import { ERROR_TABLE } from '../../../src/cli/error-table.js';
import { SETTINGS } from '../../../src/config/settings.js';

const root = resolve(import.meta.dirname, '../../..');
const committed = (path: string): string => readFileSync(resolve(root, path), 'utf8');
const FIX = 'run `npm run docs:reference` and commit docs/reference.md and man/docextract.1';

/** Each command (`config set`) with the long flags its help lists, from the program dist/ was built from. */
function commandsOf(facts: ReferenceFacts): { path: string; flags: string[] }[] {
  return facts.cli.commands.map((command) => ({
    path: command.path.join(' '),
    flags: command.options.flatMap((option) => option.term.match(/--[a-z0-9-]+/g) ?? []),
  }));
}

/** The part of the reference under one command's heading, up to the next heading. */
function sectionOf(reference: string, path: string): string {
  const start = reference.indexOf(`\n### docextract ${path}\n`);
  if (start < 0) return '';
  const end = reference.indexOf('\n#', start + 1);
  return reference.slice(start, end < 0 ? undefined : end);
}

describe('the generated reference and manual page', () => {
  let built: Record<string, string>;
  let commands: { path: string; flags: string[] }[];
  beforeAll(async () => {
    const facts = await referenceFacts();
    commands = commandsOf(facts);
    built = await buildReference(facts);
  });

  it.each(REFERENCE_FILES)('%s is what the code generates', (path) => {
    expect(committed(path) === built[path], `${path} differs from the code: ${FIX}`).toBe(true);
  });

  const reference = committed('docs/reference.md');
  const manPage = committed('man/docextract.1');

  it('have every command, each with every flag in its own section', () => {
    expect(commands.map((command) => command.path)).toEqual(expect.arrayContaining(['extract', 'watch', 'config set', 'export', 'mcp', 'completion']));
    for (const { path, flags } of commands) {
      const section = sectionOf(reference, path);
      expect(section, `docs/reference.md has no section for \`docextract ${path}\`: ${FIX}`).not.toBe('');
      for (const flag of flags)
        expect(section, `\`docextract ${path} ${flag}\` is missing from docs/reference.md: ${FIX}`).toMatch(new RegExp(`\`[^\`]*${flag}\\b`));
    }
  });

  it('give every command its .SS in the manual page, with its flags escaped for roff', () => {
    for (const { path, flags } of commands) {
      const start = manPage.indexOf(`\n.SS "docextract ${path.replaceAll('-', '\\-')}"\n`);
      expect(start, `man/docextract.1 has no .SS for \`docextract ${path}\`: ${FIX}`).toBeGreaterThan(0);
      const section = manPage.slice(start, manPage.indexOf('\n.S', start + 1));
      for (const flag of flags) expect(section, `${path} ${flag}`).toContain(flag.replaceAll('-', '\\-'));
    }
    expect(manPage).toMatch(/^\.TH DOCEXTRACT 1 /m);
    // Roff reads a line starting with . or ' as a request: text never does.
    for (const line of manPage.split('\n')) if (/^[.']/.test(line)) expect(line, line).toMatch(/^(\.\\"|\.[A-Z]{1,2}\b|\.[a-z]{2}\b)/);
  });

  it('have every setting, with its environment variable and default', () => {
    for (const setting of SETTINGS) {
      const row = reference.split('\n').find((line) => line.startsWith(`| \`${setting.key}\` |`));
      expect(row, `setting ${setting.key} is missing from docs/reference.md: ${FIX}`).toBeDefined();
      if ('env' in setting) expect(row).toContain(`\`${setting.env}\``);
      if ('default' in setting) expect(row).toContain(`\`${setting.default}\``);
    }
  });

  it('have every error code with its exit code', () => {
    for (const [code, outcome] of Object.entries(ERROR_TABLE)) {
      expect(reference, `error code ${code} is missing from docs/reference.md: ${FIX}`).toContain(`| \`${code}\` | ${outcome.exit} (`);
    }
  });
});
