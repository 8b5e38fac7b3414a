import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { DocumentOutcome } from '../index.js';
import { OutcomeCounts } from '../library/outcomes.js';
import { plural } from '../util/plural.js';
import type { PartAnswer } from './part-data.js';
import { answer, shortChecks, toolError } from './tool-answers.js';

/**
 * Characters of extracted data (as JSON) one extract answer carries at
 * most, over all its documents: some 5 to 10 invoices. The data of the
 * documents past it is left out of the answer (the result files hold it),
 * and the answer names them, to be read one at a time with the result tool.
 */
export const EXTRACT_DATA_BUDGET = 20_000;

/**
 * Characters of document lines (status, result file, error; data aside) one
 * extract answer lists at most: some 150 documents. Documents that did not
 * complete come first; those past it are counted by status, not listed.
 */
const EXTRACT_LIST_BUDGET = 30_000;

const documentLine = z.looseObject({
  file: z.string(),
  status: z.string(),
  output: z.string().nullable(),
  error: toolError.optional(),
  data: z.unknown().optional(),
  in_parts: z.boolean().optional(),
  data_left_out: z.boolean().optional(),
});

/** The extract tool's structured content (an error has `error` and, when documents were tried, the rest too). */
export const extractOutput = {
  summary: z.string().optional(),
  credits: z.number().optional(),
  requests: z.number().optional(),
  interrupted: z.boolean().optional(),
  counts: z.record(z.string(), z.number()).optional(),
  data_budget_chars: z.number().optional(),
  out: z.string().optional(),
  data_left_out: z.looseObject({ documents: z.number(), how: z.string() }).optional(),
  not_listed: z.looseObject({ documents: z.number(), counts: z.record(z.string(), z.number()), how: z.string() }).optional(),
  documents: z.array(documentLine).optional(),
  error: toolError.optional(),
};

/**
 * The answer of one extract call, bounded whatever the folder's size: per
 * document its status, result file and error code, documents that did not
 * complete first, within a list budget (the rest counted by status); data
 * while the data budget lasts, dropped at once past it (never kept in
 * memory), each such document marked `data_left_out`. A verdict comes only
 * from this server's schemas, made here on the data returned: a result
 * reused from an earlier run keeps its file's old `checks`, which this
 * server never gave.
 */
export class ExtractAnswer {
  private readonly notDone: Record<string, unknown>[] = [];
  private readonly done: Record<string, unknown>[] = [];
  private readonly counted = new OutcomeCounts();
  private dataChars = 0;

  constructor(
    /** Whether the run checked results with a schema of this server or call: only then is a verdict shown (an older run's is not). */
    private readonly checked: boolean,
    private readonly out: string,
    private readonly budgets = { data: EXTRACT_DATA_BUDGET, list: EXTRACT_LIST_BUDGET },
  ) {}

  /**
   * One finished document; `parts`: the parts of a document sent in parts
   * (partsOf), whose list is its data, each part with its own
   * verdict, never merged into one.
   */
  add(outcome: DocumentOutcome, parts?: readonly PartAnswer[]): void {
    this.counted.add(outcome);
    const hasResult = outcome.status === 'complete' || outcome.status === 'partial';
    // The run's own verdict: the engine checked the data with this call's checker as it arrived (and a reused result again).
    const checks = this.checked && hasResult && !parts ? outcome.checks : undefined;
    const data = parts ?? outcome.data;
    const line: Record<string, unknown> = {
      file: outcome.file,
      status: outcome.status,
      output: outcome.output,
      ...(outcome.error ? { error: { code: outcome.error.code, message: outcome.error.message } } : {}),
      ...(outcome.missing_pages ? { missing_pages: outcome.missing_pages } : {}),
      ...(outcome.credits > 0 ? { credits: outcome.credits } : {}),
      ...(outcome.reused ? { reused: true } : {}),
      ...(outcome.reviewed ? { reviewed: true } : {}),
      ...(checks ? { checks: shortChecks(checks) } : {}),
      ...(parts ? { in_parts: true } : {}),
    };
    if (hasResult && data !== undefined) {
      const size = JSON.stringify(data).length;
      if (this.dataChars + size <= this.budgets.data) {
        line.data = data;
        this.dataChars += size;
      } else {
        line.data_left_out = true;
      }
    }
    (outcome.status === 'complete' ? this.done : this.notDone).push(line);
  }

  /** The answer: isError when no document could be done, with the code they share (else `nothing_extracted`). */
  finish(report: { credits: number; requests: number; interrupted: boolean }): CallToolResult {
    const total = this.notDone.length + this.done.length;
    // Only the statuses that occurred, as the answer has always listed them.
    const counts = Object.fromEntries(Object.entries(this.counted.byStatus).filter(([, count]) => count > 0));
    const { complete, partial } = this.counted.byStatus;
    const { listed, notListed } = this.listed();
    const leftOut = listed.filter((line) => line.data_left_out === true).length;
    const summary = [
      `${complete} of ${plural(total, 'document')} complete, ${plural(report.credits, 'credit')} spent`,
      leftOut > 0 ? `data of ${plural(leftOut, 'document')} left out (past ${this.budgets.data} characters of data): read each with the result tool` : '',
      notListed.documents > 0 ? `${plural(notListed.documents, 'more document')} not listed (past ${this.budgets.list} characters of lines)` : '',
      report.interrupted ? 'cancelled: run the same extraction again to finish (nothing done is paid twice)' : '',
    ].filter(Boolean);
    const content: Record<string, unknown> = {
      summary: summary.join('; '),
      credits: report.credits,
      requests: report.requests,
      interrupted: report.interrupted,
      counts,
      out: this.out,
      data_budget_chars: this.budgets.data,
      ...(leftOut > 0
        ? { data_left_out: { documents: leftOut, how: 'the documents marked data_left_out: call the result tool with {"path": "<output>"} for each' } }
        : {}),
      ...(notListed.documents > 0
        ? { not_listed: { ...notListed, how: `their results are in ${this.out}: call the result tool with {"path": "<source file>"} for any one` } }
        : {}),
      documents: listed,
    };
    if (complete + partial > 0) return answer(content);
    return answer({ error: this.nothingDone(), ...content }, true);
  }

  /** Documents that did not complete first, then complete ones, while the list budget lasts. */
  private listed(): { listed: Record<string, unknown>[]; notListed: { documents: number; counts: Record<string, number> } } {
    const listed: Record<string, unknown>[] = [];
    const counts: Record<string, number> = {};
    let chars = 0;
    let documents = 0;
    for (const line of [...this.notDone, ...this.done]) {
      const { data: _data, ...rest } = line;
      chars += JSON.stringify(rest).length;
      if (chars <= this.budgets.list) {
        listed.push(line);
        continue;
      }
      documents += 1;
      counts[String(line.status)] = (counts[String(line.status)] ?? 0) + 1;
    }
    return { listed, notListed: { documents, counts } };
  }

  private nothingDone(): { code: string; message: string } {
    const lines = this.notDone;
    if (lines.length === 0) return { code: 'no_documents', message: 'the paths name no document to extract (PDF, JPEG or PNG)' };
    const codes = new Set(lines.map((line) => (line.error as { code?: string } | undefined)?.code ?? String(line.status)));
    const [only] = codes;
    const code = codes.size === 1 && only !== undefined ? only : 'nothing_extracted';
    const first = lines.find((line) => line.error !== undefined);
    const why = first ? `${String(first.file)}: ${(first.error as { message: string }).message}` : `every document ${String(lines[0]?.status)}`;
    return { code, message: `no document could be extracted (${why})` };
  }
}
