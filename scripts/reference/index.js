// The generated reference (docs/reference.md) and manual page (man/docextract.1), from the code's own
// tables: the help texts' program, SETTINGS, ERROR_TABLE with the exit codes, the result file's type
// and the MCP server's tools. `npm run docs:reference` writes them; test/unit/docs/reference.test.ts
// fails when the committed files differ from what this builds.
import { readFileSync } from 'node:fs';
import { describeCommands } from './commands.js';
import { describeMcpTools } from './mcp-tools.js';
import { renderManPage } from './render-man.js';
import { renderMarkdown } from './render-markdown.js';
import { exitCodeDocs, resultFileFields } from './source-docs.js';

const root = new URL('../../', import.meta.url);

/** The files this builds, by path from the repository's root. */
export const REFERENCE_FILES = ['docs/reference.md', 'man/docextract.1'];

/** What the reference is made of, read from dist/ (built from src/) and, for doc comments, src/. */
export async function referenceFacts() {
  const load = (path) => import(new URL(`dist/${path}`, root).href);
  const [main, clock, settings, errorTable, mcp] = await Promise.all([
    load('cli/main.js'),
    load('util/clock.js'),
    load('config/settings.js'),
    load('cli/error-table.js'),
    load('mcp/server.js'),
  ]);
  const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
  return {
    version,
    cli: describeCommands({ main, clock }),
    settings: settings.SETTINGS,
    errorTable: errorTable.ERROR_TABLE,
    exitCodes: exitCodeDocs(),
    resultFields: resultFileFields(),
    mcp: await describeMcpTools({ mcp }),
  };
}

/** Each file's text, by its path in REFERENCE_FILES. */
export async function buildReference(facts) {
  facts ??= await referenceFacts();
  return { 'docs/reference.md': renderMarkdown(facts), 'man/docextract.1': renderManPage(facts) };
}
