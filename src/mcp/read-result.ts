import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { DocExtract, PartData, ResultChecker } from '../index.js';
import { partAnswers } from './part-data.js';
import { answer, failed, shortChecks, toolError } from './tool-answers.js';

/** Characters of a result's data (as JSON) one result answer carries at most; a larger one comes in slices (`offset`, `next_offset`). */
export const RESULT_DATA_BUDGET = 50_000;

/** The result tool's structured content. */
export const resultOutput = {
  output: z.string().optional(),
  source: z.string().optional(),
  status: z.string().optional(),
  model: z.string().nullable().optional(),
  pages: z.unknown().optional(),
  data: z.unknown().optional(),
  in_parts: z.boolean().optional(),
  data_json: z.string().optional(),
  data_chars: z.number().optional(),
  offset: z.number().optional(),
  next_offset: z.number().nullable().optional(),
  other_results: z.array(z.string()).optional(),
  error: toolError.optional(),
};

/**
 * One document's result, by its result file or by its source (looked up in
 * the output folders this server wrote to): status, pages, this server's
 * verdict and the data, as a person corrected it when they did. Data past
 * the budget comes as a slice of its JSON text, from `offset`.
 */
export async function readOneResult(
  client: DocExtract,
  path: string,
  offset: number,
  folders: { outs: readonly string[]; checker: ResultChecker | undefined },
): Promise<CallToolResult> {
  const read = await client.result(path, { outs: folders.outs, ...(folders.checker ? { checker: folders.checker } : {}) });
  if (read === undefined) return failed('result_not_found', `no result for ${path}: name a result file, or a source extracted into ${folders.outs.join(', ')}`);
  const { output, result, reviewed, inParts, checks, others } = read;
  const data = inParts ? partAnswers(read.data as PartData[]) : read.data;
  const text = JSON.stringify(data) ?? 'null';
  const whole = offset === 0 && text.length <= RESULT_DATA_BUDGET;
  const next = offset + RESULT_DATA_BUDGET;
  return answer({
    output,
    source: result.source.path,
    status: result.status,
    model: result.model,
    pages: result.pages,
    ...(reviewed ? { reviewed: true } : {}),
    ...(inParts ? { in_parts: true } : {}),
    ...(checks ? { checks: shortChecks(checks) } : {}),
    ...(whole ? { data } : { data_json: text.slice(offset, next), data_chars: text.length, offset, next_offset: next < text.length ? next : null }),
    ...(others.length > 0 ? { other_results: others } : {}),
  });
}
