/**
 * What a sender controls, end to end, against a service that shares no code
 * with our emulator (test/helpers/independent-hostile-service.ts): file names with
 * terminal escapes and newlines, extracted values that are formulas, a
 * dotted key beside a nested one, and models whose names and texts carry
 * escapes. Every human-readable line of extract, check, jobs, usage and
 * models is free of control bytes; the export starts no formula and keeps
 * numbers numbers; the two IBANs stay apart.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/emulator-run.js';
import { HOSTILE_NAME_PART, NEWLINE_NAME_PART, startHostileService, type HostileService } from '../helpers/independent-hostile-service.js';
import { labelledPdf } from '../helpers/make-pdf.js';
import { isolatedEnv, runCli, type CliRun } from '../helpers/run-cli.js';
import { makeWorkspace } from '../helpers/workspace.js';

/** Any control byte but the line break, and the bidi controls: none may reach a terminal raw. */
// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
/** What a spreadsheet reads as the start of a formula. */
const FORMULA_START = /^[=+\-@\t\r\uff1d\uff0b\uff0d\uff20]/u;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?$/;

let service: HostileService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function hostileWorkspace() {
  service = await startHostileService(TEST_KEY);
  const ws = makeWorkspace({});
  mkdirSync(ws.inputs, { recursive: true });
  const names = [`${HOSTILE_NAME_PART}.pdf`, `${NEWLINE_NAME_PART}.pdf`, '=cmd.pdf'];
  for (const name of names) writeFileSync(join(ws.inputs, name), await labelledPdf(name.length.toString(), 1));
  const env = isolatedEnv({ DOCEXTRACT_BASE_URL: service.url, DOCEXTRACT_API_KEY: TEST_KEY, DOCEXTRACT_RATE_LIMIT: 'none' });
  const cli = (args: string[]): Promise<CliRun> => runCli(args, { env, cwd: ws.dir });
  return { ws, names, cli };
}

function expectNoRawControl(run: CliRun, what: string): void {
  for (const [stream, text] of [
    ['stdout', run.stdout],
    ['stderr', run.stderr],
  ] as const) {
    const found = RAW_CONTROL.exec(text);
    expect(
      found === null ? '' : JSON.stringify(text.slice(Math.max(0, found.index - 40), found.index + 40)),
      `${what}: a raw control character on ${stream}`,
    ).toBe('');
  }
}

describe('a hostile sender, against an independent service', () => {
  it('extract, check, jobs, usage and models print every name, value and service text escaped', async () => {
    const { ws, names, cli } = await hostileWorkspace();
    const extract = await cli(['extract', ws.inputs, '--out', ws.out]);
    expect(extract.code, extract.stderr).toBe(0);
    expectNoRawControl(extract, 'extract');
    // The names are shown, escaped: the newline as \n, the escape as \x1b (or \e), the override as \u202e.
    expect(extract.stdout + extract.stderr).toMatch(/complete fake\.pdf/);
    expect(extract.stdout + extract.stderr).not.toMatch(/\n\s*complete fake\.pdf/);
    expect(readdirSync(ws.out).sort()).toEqual(names.map((name) => `${name}.json`).sort());

    for (const args of [['check', ws.out], ['jobs'], ['usage', '--by', 'model'], ['usage'], ['models'], ['whoami']]) {
      const run = await cli(args);
      expectNoRawControl(run, args.join(' '));
    }
    const models = await cli(['models']);
    expect(models.code, models.stderr).toBe(0);
    expect(models.stdout + models.stderr).toContain('invoice');
  });

  it('export starts no formula, keeps numbers numbers, and keeps bank.iban apart from bank → iban', async () => {
    const { ws, cli } = await hostileWorkspace();
    expect((await cli(['extract', ws.inputs, '--out', ws.out, '--json'])).code).toBe(0);
    const tables = join(ws.dir, 'tables');
    const exported = await cli(['export', ws.out, '--out', tables]);
    expect(exported.code, exported.stderr).toBe(0);
    expectNoRawControl(exported, 'export');

    const csvFiles = readdirSync(tables).filter((name) => name.endsWith('.csv'));
    expect(csvFiles.length).toBeGreaterThan(0);
    let cells = 0;
    for (const file of csvFiles) {
      const rows = parse(readFileSync(join(tables, file)), { relax_column_count: false }) as string[][];
      const [header = []] = rows;
      expect(new Set(header).size, `${file}: every column name once`).toBe(header.length);
      for (const row of rows) {
        for (const cell of row) {
          cells++;
          if (PLAIN_NUMBER.test(cell)) continue;
          expect(FORMULA_START.test(cell), `${file}: a cell starts a formula: ${JSON.stringify(cell)}`).toBe(false);
        }
      }
    }
    expect(cells).toBeGreaterThan(20);

    const [header = [], ...rows] = parse(readFileSync(join(tables, 'invoice.csv'))) as string[][];
    expect(rows).toHaveLength(3);
    const row = rows[0] ?? [];
    const cell = (column: number) => row[column];
    // Negative amounts stay numbers.
    expect(cell(header.indexOf('total'))).toBe('-12.5');
    // The nested IBAN and the dotted key each have a column of their own, with their own value.
    const ibans = header
      .map((name, column) => [name, cell(column)] as const)
      .filter(([, value]) => value === 'DE89370400440532013000' || value === 'GB33BUKB20201555555555');
    expect(ibans.map(([, value]) => value).sort()).toEqual(['DE89370400440532013000', 'GB33BUKB20201555555555']);
    expect(ibans[0]?.[0]).not.toBe(ibans[1]?.[0]);
  });
});
