import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { errorCodeOf } from '../util/docextract-error.js';
import type { ResultChecks } from '../library/check.js';

/** At most this many problems of a verdict go into an answer; the result file holds them all. */
const PROBLEMS_SHOWN = 10;

/** An error as the agent sees it: isError, with the code in `structuredContent.error.code` and in the text. */
export const toolError = z.object({ code: z.string(), message: z.string() });

/** A tool's answer: the structured content, and the same JSON as text (MCP: a tool with structured content returns it as text too). */
export function answer(content: Record<string, unknown>, isError = false): CallToolResult {
  return { ...(isError ? { isError: true } : {}), content: [{ type: 'text', text: JSON.stringify(content) }], structuredContent: content };
}

/** Nothing could be done: the code, and what happened. */
export function failed(code: string, message: string): CallToolResult {
  return answer({ error: { code, message } }, true);
}

/** What stopped a call: the error's own `code` when it has one (unknown_model, state_locked, path_not_allowed, ...), else the API's, else `internal_error`. */
export function failedWith(error: unknown): CallToolResult {
  const own = (error as { code?: unknown } | null)?.code;
  return failed(typeof own === 'string' && own !== '' ? own : errorCodeOf(error), error instanceof Error ? error.message : String(error));
}

/** A verdict, with its first problems only. */
export function shortChecks(checks: ResultChecks): Record<string, unknown> {
  const more = checks.problems.length - PROBLEMS_SHOWN;
  return { schema: checks.schema, passed: checks.passed, problems: checks.problems.slice(0, PROBLEMS_SHOWN), ...(more > 0 ? { more_problems: more } : {}) };
}
