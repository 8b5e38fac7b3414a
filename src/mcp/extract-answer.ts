import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { DocumentOutcome, ResultChecker } from '../batch/batch-types.js';
import { normaliseModel, SERVICE_DEFAULT_MODEL } from '../batch/question.js';
import { plural } from '../util/plural.js';
import { answer, shortChecks, toolError } from './tool-answers.js';

/**
 * Characters of extracted data (as JSON) one extract answer carries at
 * most, over all its documents: some 5 to 10 invoices. The data of the
 * documents past it is left out of the answer (the result files hold it),
 * and the answer names them, to be read one at a time with the result tool.
 */
export const EXTRACT_DATA_BUDGET = 20_000;

const documentLine = z.looseObject({
  file: z.string(),
  status: z.string(),
  output: z.string().nullable(),
  error: toolError.optional(),
  data: z.unknown().optional(),
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
  data_left_out: z.looseObject({ documents: z.number(), outputs: z.array(z.string()), how: z.string() }).optional(),
  documents: z.array(documentLine).optional(),
  error: toolError.optional(),
};

/**
 * The answer of one extract call, built as its documents finish: per
 * document its status, result file and error, and its data while the call's
 * data budget lasts (data past it is dropped at once, not kept in memory).
 * A verdict comes only from this server's schemas, made here on the data
 * returned: a result reused from an earlier run keeps its file's old
 * `checks`, which this server never gave.
 */
export class ExtractAnswer {
  private readonly lines: Record<string, unknown>[] = [];
  private readonly counts: Record<string, number> = {};
  private readonly leftOut: string[] = [];
  private dataChars = 0;

  constructor(
    private readonly checker: ResultChecker | undefined,
    private readonly budget = EXTRACT_DATA_BUDGET,
  ) {}

  add(outcome: DocumentOutcome): void {
    this.counts[outcome.status] = (this.counts[outcome.status] ?? 0) + 1;
    const hasResult = outcome.status === 'complete' || outcome.status === 'partial';
    const checks = hasResult ? this.checker?.check(normaliseModel(outcome.model ?? SERVICE_DEFAULT_MODEL), outcome.data) : undefined;
    const line: Record<string, unknown> = {
      file: outcome.file,
      status: outcome.status,
      output: outcome.output,
      pages: outcome.pages,
      credits: outcome.credits,
      ...(outcome.error ? { error: { code: outcome.error.code, message: outcome.error.message } } : {}),
      ...(outcome.missing_pages ? { missing_pages: outcome.missing_pages } : {}),
      ...(outcome.reused ? { reused: outcome.reused } : {}),
      ...(outcome.reviewed ? { reviewed: true } : {}),
      ...(checks ? { checks: shortChecks(checks) } : {}),
    };
    if (hasResult && outcome.data !== undefined) {
      const size = JSON.stringify(outcome.data).length;
      if (this.dataChars + size <= this.budget) {
        line.data = outcome.data;
        this.dataChars += size;
      } else {
        line.data_left_out = true;
        if (outcome.output) this.leftOut.push(outcome.output);
      }
    }
    this.lines.push(line);
  }

  /** The answer: isError when no document could be done, with the code they share (else `nothing_extracted`). */
  finish(report: { credits: number; requests: number; interrupted: boolean }): CallToolResult {
    const done = (this.counts.complete ?? 0) + (this.counts.partial ?? 0);
    const leftOut = this.leftOut.length;
    const summary = [
      `${this.counts.complete ?? 0} of ${plural(this.lines.length, 'document')} complete, ${plural(report.credits, 'credit')} spent`,
      leftOut > 0 ? `data of ${plural(leftOut, 'document')} left out (past the answer's budget of ${this.budget} characters): read each with the result tool` : '',
      report.interrupted ? 'cancelled: run the same extraction again to finish (nothing done is paid twice)' : '',
    ].filter(Boolean);
    const content: Record<string, unknown> = {
      summary: summary.join('; '),
      credits: report.credits,
      requests: report.requests,
      interrupted: report.interrupted,
      counts: this.counts,
      data_budget_chars: this.budget,
      ...(leftOut > 0 ? { data_left_out: { documents: leftOut, outputs: this.leftOut, how: 'call the result tool with {"path": "<output>"} for each' } } : {}),
      documents: this.lines,
    };
    if (done > 0) return answer(content);
    return answer({ error: this.nothingDone(), ...content }, true);
  }

  private nothingDone(): { code: string; message: string } {
    if (this.lines.length === 0) return { code: 'no_documents', message: 'the paths name no document to extract (PDF, JPEG or PNG)' };
    const codes = new Set(this.lines.map((line) => (line.error as { code?: string } | undefined)?.code ?? String(line.status)));
    const [only] = codes;
    const code = codes.size === 1 && only !== undefined ? only : 'nothing_extracted';
    const first = this.lines.find((line) => line.error !== undefined);
    const why = first ? `${String(first.file)}: ${(first.error as { message: string }).message}` : `every document ${String(this.lines[0]?.status)}`;
    return { code, message: `no document could be extracted (${why})` };
  }
}
