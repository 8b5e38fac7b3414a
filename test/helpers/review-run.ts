import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from './emulator-run.js';
import { runCli, type CliRun } from './run-cli.js';
import { makeWorkspace } from './workspace.js';

/** `docextract review` running in this process: its URL, and a way to stop it (as Ctrl-C would). */
export interface RunningReview {
  url: string;
  stop(): Promise<CliRun>;
}

export async function startReviewCli(args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<RunningReview> {
  const controller = new AbortController();
  let printed = '';
  let announce: (url: string) => void = () => undefined;
  const url = new Promise<string>((resolve) => (announce = resolve));
  const run = runCli(['review', ...args], {
    env,
    stop: controller.signal,
    ...(cwd ? { cwd } : {}),
    onOutput: (stream, chunk) => {
      if (stream !== 'stdout') return;
      printed += chunk;
      const line = /^(http:\/\/\S+)\n/.exec(printed);
      if (line?.[1]) announce(line[1]);
    },
  });
  const first = await Promise.race([url, run.then((done) => Promise.reject(new Error(`review ended early (${done.code}): ${done.stderr}`)))]);
  return {
    url: first,
    stop: () => {
      controller.abort();
      return run;
    },
  };
}

/** What the emulator's invoices hold, required: payslips checked against it fail (no invoice_number, no total). */
export const INVOICE_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['invoice_number', 'total'],
  properties: { invoice_number: { type: 'string', pattern: '^[0-9]{8}$' }, total: { type: 'number' } },
  'x-sum': { items: 'pages.line_items', field: 'amount', equals: 'subtotal', tolerance: 0.01 },
};

/** A PDF invoice, an image invoice, a payslip that fails the invoice schema, and a PDF whose source is deleted after extraction. */
export const REVIEW_FILES = {
  'invoices/a.pdf': 'pdf/pages-2.pdf',
  'invoices/scan.jpg': 'images/receipt.jpg',
  'pay/p.pdf': 'pdf/pages-1.pdf',
  'invoices/gone.pdf': 'pdf/pages-3.pdf',
};

/** Files that get no result: the emulator fails the extraction of the first (its marker), preflight refuses the second (empty). */
export const FAILING_FILES = { corpus: { 'bad/fails.pdf': 'failing/fail-extraction-2.pdf' }, empty: ['bad/empty.pdf'] };

/** What to add to the review files: more corpus files, and empty files. */
export interface ReviewExtras {
  corpus?: Record<string, string>;
  empty?: readonly string[];
  /** Files made by the test (a long PDF), by their path below the inputs. */
  made?: Readonly<Record<string, Uint8Array>>;
}

/** Results made by the CLI against the emulator, every type checked with the invoice schema; `extras` join the inputs. */
export async function extractedForReview(
  extras: ReviewExtras = {},
  flags: readonly string[] = [],
): Promise<{ emu: RunningEmulator; ws: ReturnType<typeof makeWorkspace>; env: NodeJS.ProcessEnv; schemas: string[]; run: CliRun }> {
  const emu = await startTestEmulator();
  const ws = makeWorkspace({ ...REVIEW_FILES, ...extras.corpus });
  for (const [name, bytes] of [...(extras.empty ?? []).map((name) => [name, new Uint8Array()] as const), ...Object.entries(extras.made ?? {})]) {
    mkdirSync(dirname(join(ws.inputs, name)), { recursive: true });
    writeFileSync(join(ws.inputs, name), bytes);
  }
  const schema = join(ws.dir, 'invoice.schema.json');
  writeFileSync(schema, JSON.stringify(INVOICE_SCHEMA));
  // Payslips need the invoice's fields, not its sum: they have no line items, and an x-sum over a list that is not there fails.
  const { 'x-sum': _sum, ...fieldsOnly } = INVOICE_SCHEMA;
  const payslipSchema = join(ws.dir, 'payslip-as-invoice.schema.json');
  writeFileSync(payslipSchema, JSON.stringify(fieldsOnly));
  const env = emulatorEnv(emu);
  const schemas = ['--schema', `invoice=${schema}`, '--schema', `payslip=${payslipSchema}`];
  const run = await runCli(
    ['extract', ws.inputs, '--out', ws.out, '--model', 'pay/**=payslip', '--model', 'invoice', ...schemas, ...UNTHROTTLED_FLAGS, ...flags],
    { env },
  );
  return { emu, ws, env, schemas, run };
}
