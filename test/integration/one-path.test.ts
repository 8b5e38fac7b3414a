import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { resultDocument } from '../helpers/result-document.js';
import { startReviewCli, type RunningReview } from '../helpers/review-run.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { parseNdjson } from '../helpers/workspace.js';

let review: RunningReview | undefined;
afterEach(async () => {
  await review?.stop();
  review = undefined;
});

/** The security review's payload: a nested IBAN and a key that spells the same dotted path. */
const DATA = { bank: { iban: 'DE89370400440532013000' }, 'bank.iban': 'GB33BUKB20201555555555' };

/** The nested IBAN must be German, the dotted key's British: each check names the value it judged. */
const SCHEMA = {
  type: 'object',
  properties: { bank: { type: 'object', properties: { iban: { type: 'string', pattern: '^GB' } } }, 'bank.iban': { type: 'string', pattern: '^DE' } },
};

function workspace(): { dir: string; results: string; schema: string } {
  const dir = mkdtempSync(join(tmpdir(), 'docextract-one-path-'));
  const results = join(dir, 'results');
  mkdirSync(results);
  const result = resultDocument(join(dir, 'in.pdf'), DATA);
  writeFileSync(join(results, 'in.pdf.json'), `${JSON.stringify(result)}\n`);
  const schema = join(dir, 'invoice.schema.json');
  writeFileSync(schema, JSON.stringify(SCHEMA));
  return { dir, results, schema };
}

interface Field {
  kind: string;
  label: string;
  path: string;
  text: string;
  children?: Field[];
}

function fields(nodes: Field[]): Field[] {
  return nodes.flatMap((node) => (node.kind === 'field' ? [node] : fields(node.children ?? [])));
}

describe('one path, one value: a key holding a dot', () => {
  it('is a field of its own on the review page, in check and in export, and a correction to it lands on it alone', async () => {
    const ws = workspace();
    const env = isolatedEnv();
    review = await startReviewCli([ws.results], env);
    const view = (await (await fetch(`${review.url}api/document?id=in.pdf.json`)).json()) as { form: { nodes: Field[] }[] };
    const shown = fields(view.form[0]?.nodes ?? []).map((field) => [field.path, field.text]);
    expect(shown).toEqual([
      ['bank.iban', 'DE89370400440532013000'],
      ['bank\\.iban', 'GB33BUKB20201555555555'],
    ]);

    const saved = await fetch(`${review.url}api/document?id=in.pdf.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ values: { 'bank\\.iban': 'GB00CORRECTED' }, approved: true }),
    });
    expect(saved.status).toBe(200);
    const sidecar = JSON.parse(readFileSync(join(ws.results, 'in.pdf.json.review.json'), 'utf8')) as { corrections: unknown };
    expect(sidecar.corrections).toEqual({ 'bank\\.iban': 'GB00CORRECTED' });
    expect(((await saved.json()) as { data: unknown }).data).toEqual({ bank: { iban: 'DE89370400440532013000' }, 'bank.iban': 'GB00CORRECTED' });
    // A path no key is written as names nothing: refused, not saved under a name nobody reads.
    const odd = await fetch(`${review.url}api/document?id=in.pdf.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ values: { 'bank\\iban': 'X' }, approved: true }),
    });
    expect(odd.status).toBe(422);

    const exported = await runCli(['export', ws.results, '--out', join(ws.dir, 'tables')], { env });
    expect(exported.code, exported.stderr).toBe(0);
    const [row] = parse(readFileSync(join(ws.dir, 'tables', 'invoice.csv')), { columns: true, record_delimiter: '\r\n' }) as Record<string, string>[];
    expect(row).toMatchObject({ reviewed: 'true', 'bank.iban': 'DE89370400440532013000', 'bank\\.iban': 'GB00CORRECTED' });

    const checked = await runCli(['check', ws.results, '--schema', `invoice=${ws.schema}`, '--json'], { env });
    const [line] = parseNdjson(checked.stdout) as { checks?: { problems: { path: string; message: string }[] } }[];
    // The nested DE89 is not British, the corrected key not German: two problems, each at its own field.
    expect(line?.checks?.problems.map((problem) => problem.path).sort()).toEqual(['bank.iban', 'bank\\.iban']);
  });
});
