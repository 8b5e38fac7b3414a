import { realpath } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import fg from 'fast-glob';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ResultChecker } from '../index.js';
import { dataToCheck, documentTypeOf, isResultDocument, readResultFile, type ResultDocument } from '../library/check.js';
import { partsDataOf } from './part-data.js';
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
  path: string,
  offset: number,
  folders: { cwd: string; outs: readonly string[]; checker: ResultChecker | undefined },
): Promise<CallToolResult> {
  const absolute = resolve(folders.cwd, path);
  const named = await readResultFile(absolute);
  const found = named && isResultDocument(named) ? [absolute] : await resultsOfSource(absolute, folders.outs);
  const [output, ...others] = found;
  if (output === undefined)
    return failed('result_not_found', `no result for ${path}: name a result file, or a source extracted into ${folders.outs.join(', ')}`);
  const result = (await readResultFile(output)) as ResultDocument;
  // A document in parts: its data is the list of its parts, each with its source pages and own data (a review of it is read only: none applies).
  const parts = partsDataOf(result, folders.checker, documentTypeOf(result));
  const { data, review } = parts ? { data: parts, review: undefined } : await dataToCheck(output, result);
  const checks = parts ? undefined : folders.checker?.check(documentTypeOf(result), data);
  const text = JSON.stringify(data) ?? 'null';
  const whole = offset === 0 && text.length <= RESULT_DATA_BUDGET;
  const next = offset + RESULT_DATA_BUDGET;
  return answer({
    output,
    source: result.source.path,
    status: result.status,
    model: result.model,
    pages: result.pages,
    ...(review ? { reviewed: true } : {}),
    ...(parts ? { in_parts: true } : {}),
    ...(checks ? { checks: shortChecks(checks) } : {}),
    ...(whole ? { data } : { data_json: text.slice(offset, next), data_chars: text.length, offset, next_offset: next < text.length ? next : null }),
    ...(others.length > 0 ? { other_results: others } : {}),
  });
}

/** Result files in `outs` that name `source` (whole first, then page selections `x.pdf.p1-3.json`). */
async function resultsOfSource(source: string, outs: readonly string[]): Promise<string[]> {
  const real = await realpath(source).catch(() => source);
  const name = fg.escapePath(basename(source));
  const found: string[] = [];
  for (const out of new Set(outs)) {
    const candidates = await fg([`**/${name}.json`, `**/${name}.p*.json`], { cwd: out, absolute: true, onlyFiles: true, suppressErrors: true });
    for (const candidate of candidates.sort((a, b) => a.length - b.length)) {
      const path = (await readResultFile(candidate))?.source?.path;
      if (path === source || path === real) found.push(candidate);
    }
  }
  return found;
}
