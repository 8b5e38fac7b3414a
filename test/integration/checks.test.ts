import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { runCli } from '../helpers/run-cli.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';

/** Invoices by default, payslips under pay/: a long PDF goes through the split-and-collect path. */
const FILES = {
  'invoices/a.pdf': 'pdf/pages-2.pdf',
  'invoices/long.pdf': 'pdf/pages-4.pdf',
  'invoices/scan.jpg': 'images/receipt.jpg',
  'pay/p.pdf': 'pdf/pages-1.pdf',
  'pay/q.png': 'images/id-card.png',
};
const MODELS = ['--model', 'pay/**=payslip', '--model', 'invoice'];

/** What the emulator's invoices hold (src/emulator/synthetic): a number, a numeric total, a date, line items per page that add up to the subtotal. */
const INVOICE_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['invoice_number', 'total'],
  properties: {
    invoice_number: { type: 'string', pattern: '^[0-9]{8}$' },
    total: { type: 'number' },
    issue_date: { type: 'string', format: 'date' },
    vendor: { type: 'object', properties: { vat_id: { type: 'string', pattern: '^[A-Z]{2}[0-9]{9}$' } } },
  },
  'x-sum': { items: 'pages.line_items', field: 'amount', equals: 'subtotal', tolerance: 0.01 },
};
const PAYSLIP_SCHEMA = { type: 'object', required: ['gross', 'net'], properties: { gross: { type: 'number' }, net: { type: 'number' } } };
const NOT_AN_INVOICE = [
  { path: 'invoice_number', message: 'is required' },
  { path: 'total', message: 'is required' },
  // A payslip has no line items: a sum over a list that is not there fails, rather than passing unseen.
  { path: 'pages.line_items', message: 'is absent: x-sum adds up pages.line_items[].amount to subtotal' },
];

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

function requestsSent(emu: RunningEmulator): number {
  return Object.values(emu.counters.requestsByEndpoint).reduce((a, b) => a + b, 0);
}

/** Requests that do work: a rerun of extract still asks the free `models` list about the names it was given. */
function workRequests(emu: RunningEmulator): number {
  const { documents, process, result } = emu.counters.requestsByEndpoint;
  return documents + process + result;
}

function checksIn(out: string, name: string): unknown {
  return (JSON.parse(readFileSync(join(out, `${name}.json`), 'utf8')) as { checks?: unknown }).checks;
}

async function extractedWithInvoiceSchema() {
  emulator = await startTestEmulator();
  const ws = makeWorkspace(FILES);
  const schema = join(ws.dir, 'invoice.schema.json');
  writeFileSync(schema, JSON.stringify(INVOICE_SCHEMA));
  const env = emulatorEnv(emulator);
  // The invoice schema for payslips too: they have no invoice_number and no total, so they fail.
  const schemas = ['--schema', `invoice=${schema}`, '--schema', `payslip=${schema}`];
  const run = await runCli(['extract', ws.inputs, '--out', ws.out, ...MODELS, ...schemas, '--json', ...UNTHROTTLED_FLAGS], { env });
  return { emu: emulator, ws, schema, env, schemas, run };
}

describe('checks against a schema as results arrive', () => {
  it('marks the failures in the result file, the --json line and the summary, and exits 5', async () => {
    const { ws, schema, run } = await extractedWithInvoiceSchema();
    expect(run.code).toBe(5);
    const lines = parseNdjson(run.stdout);
    expect(lines).toHaveLength(5);
    for (const name of Object.keys(FILES)) {
      const line = lines.find((l) => String(l.file).endsWith(name));
      const checks = name.startsWith('pay/') ? { schema, passed: false, problems: NOT_AN_INVOICE } : { schema, passed: true, problems: [] };
      expect(line, name).toMatchObject({ status: 'complete', checks });
      expect(checksIn(ws.out, name), name).toEqual(checks);
    }
    expect(run.stderr).toMatch(/5 complete, 0 partial, 0 failed, 2 failed checks · /);
  });

  it('says why on the human line, and checks reused results again without a request', async () => {
    const { emu, ws, env, schemas } = await extractedWithInvoiceSchema();
    const before = workRequests(emu);
    const again = await runCli(['extract', ws.inputs, '--out', ws.out, ...MODELS, ...schemas, ...UNTHROTTLED_FLAGS], { env });
    expect(again.code).toBe(5);
    expect(workRequests(emu)).toBe(before);
    expect(again.stdout).toContain(`complete  ${join(ws.inputs, 'pay/p.pdf')}`);
    expect(again.stdout).toMatch(
      /pay\/p\.pdf\.json \(1 page; reused: .*\); checks failed: invoice_number is required, total is required, pages\.line_items is absent: x-sum adds up pages\.line_items\[\]\.amount to subtotal\n/,
    );
    expect(again.stdout).not.toMatch(/invoices\/.*checks failed/);
    expect(again.stderr).toContain('2 failed checks');

    // Payslips get a schema of their own: the reused results get the new verdict, in their files too.
    const paySchema = join(ws.dir, 'payslip.schema.json');
    writeFileSync(paySchema, JSON.stringify(PAYSLIP_SCHEMA));
    const fixed = await runCli(['extract', ws.inputs, '--out', ws.out, ...MODELS, '--schema', `payslip=${paySchema}`, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(fixed.code).toBe(0);
    expect(workRequests(emu)).toBe(before);
    expect(parseNdjson(fixed.stdout).find((l) => String(l.file).endsWith('pay/q.png'))?.checks).toEqual({ schema: paySchema, passed: true, problems: [] });
    expect(checksIn(ws.out, 'pay/q.png')).toEqual({ schema: paySchema, passed: true, problems: [] });
  });

  it('exits 0 when every result passes, and 1 over 5 when something else failed too', async () => {
    emulator = await startTestEmulator();
    const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-1.pdf', 'pay/p.pdf': 'pdf/pages-2.pdf', 'bad.pdf': 'broken/not-a-pdf.pdf' });
    const schema = join(ws.dir, 'invoice.schema.json');
    writeFileSync(schema, JSON.stringify(INVOICE_SCHEMA));
    const env = emulatorEnv(emulator);
    const passing = await runCli(['extract', join(ws.inputs, 'a.pdf'), '--out', ws.out, '--schema', `invoice=${schema}`, ...UNTHROTTLED_FLAGS], { env });
    expect(passing.code).toBe(0);
    expect(passing.stderr).not.toContain('failed checks');
    const worse = await runCli(['extract', ws.inputs, '--out', ws.out, ...MODELS, '--schema', `payslip=${schema}`, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(worse.code).toBe(1);
    expect(parseNdjson(worse.stdout).find((l) => String(l.file).endsWith('pay/p.pdf'))).toMatchObject({ checks: { passed: false } });
  });
});

describe('docextract check', () => {
  it('gives the same verdicts again without a request, and after a schema change the verdicts a new extraction gives', async () => {
    const { emu, ws, schema, env, schemas, run } = await extractedWithInvoiceSchema();
    const extracted = parseNdjson(run.stdout);
    const before = requestsSent(emu);

    const same = await runCli(['check', ws.out, ...schemas, '--json'], { env });
    expect(same.code).toBe(5);
    const sameLines = parseNdjson(same.stdout).filter((line) => line.kind !== 'summary');
    expect(sameLines).toHaveLength(5);
    for (const line of sameLines) expect(line.checks).toEqual(extracted.find((l) => l.output === line.output)?.checks);
    expect(same.stderr).toContain('5 results: 3 passed, 2 failed checks · nothing sent');

    // The user changes the invoice schema, and gives payslips their own.
    writeFileSync(schema, JSON.stringify({ ...INVOICE_SCHEMA, required: ['invoice_number', 'total', 'po_number'] }));
    const paySchema = join(ws.dir, 'payslip.schema.json');
    writeFileSync(paySchema, JSON.stringify(PAYSLIP_SCHEMA));
    const changed = ['--schema', `invoice=${schema}`, '--schema', `payslip=${paySchema}`];
    const human = await runCli(['check', ws.out, ...changed], { env });
    expect(human.code).toBe(5);
    expect(human.stdout).toContain(`failed    invoices/a.pdf.json (invoice): checks failed: po_number is required\n`);
    expect(human.stdout).toContain(`passed    pay/q.png.json (payslip)\n`);
    expect(requestsSent(emu)).toBe(before);

    // The verdicts saved in the files are those a fresh extraction with the changed schemas makes.
    const fresh = join(ws.dir, 'fresh');
    const again = await runCli(['extract', ws.inputs, '--out', fresh, ...MODELS, ...changed, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(again.code).toBe(5);
    for (const name of Object.keys(FILES)) {
      expect(checksIn(ws.out, name), name).toEqual(checksIn(fresh, name));
      expect((checksIn(ws.out, name) as { passed: boolean }).passed, name).toBe(name.startsWith('pay/'));
    }
  });

  it('passes everything with a fixed schema (exit 0), leaves other types alone, and needs no key', async () => {
    const { emu, ws, env } = await extractedWithInvoiceSchema();
    const before = requestsSent(emu);
    const paySchema = join(ws.dir, 'payslip.schema.json');
    writeFileSync(paySchema, JSON.stringify(PAYSLIP_SCHEMA));
    const noKey = { ...env, DOCEXTRACT_API_KEY: '' };
    const run = await runCli(['check', ws.out, '--schema', `payslip=${paySchema}`, '--json'], { env: noKey });
    expect(run.code).toBe(0);
    const lines = parseNdjson(run.stdout).filter((line) => line.kind !== 'summary');
    expect(lines.filter((line) => line.checks === undefined).map((line) => line.model)).toEqual(['invoice', 'invoice', 'invoice']);
    // Results of a type without a schema keep the verdict they had.
    expect(checksIn(ws.out, 'invoices/a.pdf')).toMatchObject({ passed: true });
    expect(checksIn(ws.out, 'pay/p.pdf')).toEqual({ schema: paySchema, passed: true, problems: [] });
    expect(run.stderr).toContain('5 results: 2 passed, 0 failed checks, 3 without a schema · nothing sent');
    expect(requestsSent(emu)).toBe(before);
  });

  it('names a result file it cannot read, checks the rest, and exits 1', async () => {
    const { ws, schema, env, schemas } = await extractedWithInvoiceSchema();
    writeFileSync(join(ws.out, 'broken.pdf.json'), '{"status": "compl');
    writeFileSync(schema, JSON.stringify({ type: 'object' }));
    const run = await runCli(['check', ws.out, ...schemas], { env });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^error {5}broken\.pdf\.json: not valid JSON \(.*\) \(result_unreadable\)$/m);
    expect(run.stderr).toContain('6 results: 5 passed, 0 failed checks, 1 could not be checked · nothing sent');
    expect(checksIn(ws.out, 'pay/p.pdf')).toMatchObject({ passed: true });
  });

  it('without --schema checks each result with the schema it records, as it reads now', async () => {
    const { emu, ws, schema, env } = await extractedWithInvoiceSchema();
    const before = requestsSent(emu);
    writeFileSync(schema, JSON.stringify({ ...INVOICE_SCHEMA, required: ['invoice_number', 'total', 'po_number'] }));
    const run = await runCli(['check', ws.out], { env: { ...env, DOCEXTRACT_API_KEY: '' } });
    expect(run.code).toBe(5);
    expect(run.stdout).toContain(`failed    invoices/a.pdf.json (invoice): checks failed: po_number is required\n`);
    expect(run.stdout).toMatch(/^failed {4}pay\/p\.pdf\.json \(payslip\): checks failed: .*po_number is required and 1 more$/m);
    expect(run.stderr).toContain('5 results: 0 passed, 5 failed checks · nothing sent');
    expect(checksIn(ws.out, 'invoices/a.pdf')).toEqual({ schema, passed: false, problems: [{ path: 'po_number', message: 'is required' }] });
    expect(requestsSent(emu)).toBe(before);
  });

  it('without --schema reports a result that records no schema as unchecked, checks the rest, and exits 2 when none could be checked', async () => {
    const { ws, env } = await extractedWithInvoiceSchema();
    // The payslips' results as a run without schemas writes them: no checks field.
    const plain = join(ws.dir, 'plain');
    mkdirSync(plain);
    for (const name of ['p.pdf.json', 'q.png.json']) {
      const { checks: _checks, ...result } = JSON.parse(readFileSync(join(ws.out, 'pay', name), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(plain, name), JSON.stringify(result));
    }
    const none = await runCli(['check', plain], { env });
    expect(none.code).toBe(2);
    expect(none.stdout).toContain('unchecked p.pdf.json (payslip): it records no schema; give --schema payslip=FILE\n');
    expect(none.stderr).toContain('2 results: 0 passed, 0 failed checks, 2 without a recorded schema · nothing sent');
    expect(none.stderr).toContain(`check needs a schema: no result in ${plain} records the schema that checked it`);
    // Beside results that record one: those are checked, this one is named, and the exit code is theirs.
    const mixed = join(ws.out, 'plain');
    await rename(plain, mixed);
    const some = await runCli(['check', ws.out, '--json'], { env });
    expect(some.code).toBe(5);
    const lines = parseNdjson(some.stdout);
    expect(lines.filter((line) => line.noRecordedSchema === true).map((line) => [line.output, line.checks])).toEqual([
      [join(mixed, 'p.pdf.json'), undefined],
      [join(mixed, 'q.png.json'), undefined],
    ]);
    expect(lines.filter((line) => (line.checks as { passed?: boolean } | undefined)?.passed === false)).toHaveLength(2);
    expect(some.stderr).toContain('7 results: 3 passed, 2 failed checks, 2 without a recorded schema · nothing sent');
  });

  it('without --schema names a result whose recorded schema is gone, and exits 2', async () => {
    const { ws, schema, env } = await extractedWithInvoiceSchema();
    await rm(schema);
    const run = await runCli(['check', ws.out], { env });
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(`error     invoices/a.pdf.json: its recorded schema ${schema}: no such file (invalid_schema)\n`);
    expect(run.stderr).toContain('5 results: 0 passed, 0 failed checks, 5 could not be checked · nothing sent');
    expect(run.stderr).toContain('5 results record a schema that cannot be used now');
  });

  it('takes the schemas setting, set like models', async () => {
    const { ws, schema, env } = await extractedWithInvoiceSchema();
    const set = await runCli(['config', 'set', 'schemas', `invoice=${schema};payslip=${schema}`], { env });
    expect(set.code).toBe(0);
    const run = await runCli(['check', ws.out], { env });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('3 passed, 2 failed checks');
  });
});

describe('schemas that cannot be used', () => {
  it.each([
    ['missing', undefined, 'no such file'],
    ['not JSON', '{"type": ', 'not valid JSON'],
    ['not a schema', '{"type": "numbr"}', 'not a valid JSON Schema'],
  ])('a %s schema file is a usage error naming it, before anything is sent', async (_what, content, why) => {
    emulator = await startTestEmulator();
    const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-1.pdf' });
    const schema = join(ws.dir, 'invoice.schema.json');
    if (content !== undefined) writeFileSync(schema, content);
    const env = emulatorEnv(emulator);
    for (const args of [
      ['extract', ws.inputs, '--out', ws.out, ...UNTHROTTLED_FLAGS],
      ['check', ws.out],
    ]) {
      const run = await runCli([...args, '--schema', `invoice=${schema}`], { env });
      expect(run.code, args[0]).toBe(2);
      expect(run.stderr).toContain(`error: schema ${schema}: ${why}`);
    }
    const set = await runCli(['config', 'set', 'schemas', `invoice=${schema}`], { env });
    expect(set.code).toBe(2);
    expect(set.stderr).toContain(`schema ${schema}: ${why}`);
    expect(requestsSent(emulator)).toBe(0);
  });

  it('check without any schema, of a folder where no result records one, is a usage error', async () => {
    const ws = makeWorkspace({});
    const run = await runCli(['check', ws.dir], { env: emulatorEnv((emulator = await startTestEmulator())) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('check needs a schema: no result in');
  });
});
