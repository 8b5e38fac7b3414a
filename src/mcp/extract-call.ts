import { resolve } from 'node:path';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { z } from 'zod';
import type { ResultChecker } from '../index.js';
import { ruleList } from '../config/grammar/rule-list.js';
import { findSetting } from '../config/settings.js';
import { SchemaRules } from '../library/check.js';
import type { DocExtract, ExtractionOptions } from '../index.js';
import { PathNotAllowedError, type AgentFolders } from './agent-folders.js';
import { isObjectUri } from '../util/object-uri.js';
import { ExtractAnswer } from './extract-answer.js';
import { partsOf, resultOfOutcome } from './part-data.js';
import { RunProgress } from './run-progress.js';
import { failed, failedWith } from './tool-answers.js';

/** A setting's help from the settings table, so a tool's argument says what the CLI's setting says. */
function tableHelp(key: 'models' | 'pages' | 'out' | 'schemas'): string {
  return findSetting(key)?.help ?? '';
}

const rules = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

/** The extract tool's arguments. */
export const extractInput = {
  paths: z
    .array(z.string().min(1))
    .min(1)
    .describe(
      'Files, folders (searched recursively) or glob patterns, inside the allowed folders (the client’s roots); relative paths are relative to the server’s working folder. Objects too (s3://bucket/prefix/, s3://bucket/key, s3:// globs), only below the s3:// roots the user allowed when starting the server (--allow-s3); anything else in object storage is refused unread',
    ),
  model: rules
    .optional()
    .describe(
      `Document type (see the models tool), e.g. "invoice"; or rules as the CLI’s --model. ${tableHelp('models')}; a bare TYPE is the default; a list, or one string. Default: the server’s models, else the service’s default (invoice)`,
    ),
  pages: rules.optional().describe(`${tableHelp('pages')}; a list, or one string. Only those pages are sent (credits = pages sent). Default: every page`),
  out: z
    .string()
    .min(1)
    .optional()
    .describe(
      `${tableHelp('out')}, inside the allowed folders; or an s3://bucket/prefix/ below the s3:// roots the user allowed when starting the server (--allow-s3), where each result is put at its key. Default: the server’s output folder`,
    ),
  force: z.boolean().optional().describe('Extract again even when a result on disk answers it (costs credits again)'),
  schemas: rules.optional().describe(`${tableHelp('schemas')}; files inside the allowed folders; a list, or one string. Besides the server’s own --schema`),
  max_credits: z.number().int().positive().optional().describe('Credits this call may spend at most (besides what is left of the server’s --max-credits)'),
};

type ExtractArgs = z.infer<z.ZodObject<typeof extractInput>>;
type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What every extract call of one server shares. */
export interface ExtractCallContext {
  /** The client the extraction is one call on. */
  client: DocExtract;
  /** What every extraction runs with; a call may name its own model, pages, out and budget. */
  base: ExtractionOptions & { out: string };
  folders: AgentFolders;
  /** Credits the server may still spend (`--max-credits` less what was spent); undefined: no limit. */
  creditsLeft: () => number | undefined;
  spent: (credits: number) => void;
  /** Output folders written to in this session (the result tool looks up sources there). */
  outs: Set<string>;
}

/** One extract call: refused before anything is read when a path or `out` is outside the allowed folders, else run with a bounded answer. */
export async function extractCall(args: ExtractArgs, extra: Extra, ctx: ExtractCallContext): Promise<CallToolResult> {
  const serverLeft = ctx.creditsLeft();
  if (serverLeft !== undefined && serverLeft <= 0) return failed('budget_exhausted', `the credit budget of this server (--max-credits) is spent`);
  const left = Math.min(serverLeft ?? Infinity, args.max_credits ?? Infinity);
  try {
    const scope = await ctx.folders.checkInputs(args.paths);
    await ctx.folders.checkResultPath(args.out ?? ctx.base.out);
    const asked = args.out ?? ctx.base.out;
    // An s3:// out is an address, not a path below the working folder.
    const out = isObjectUri(asked) ? asked : resolve(ctx.client.cwd, asked);
    const checker = args.schemas ? await callChecker(ruleList(args.schemas), ctx) : ctx.base.checker;
    const progress = new RunProgress(extra);
    const answer = new ExtractAnswer(checker !== undefined, out);
    const run = ctx.client.extract(args.paths, {
      ...ctx.base,
      out,
      allowedFolders: [...scope.allowed.folders, ...scope.allowed.objectRoots],
      ...(args.model ? { model: ruleList(args.model) } : {}),
      ...(args.pages ? { pages: ruleList(args.pages) } : {}),
      ...(args.force ? { force: true } : {}),
      ...(checker ? { checker } : {}),
      ...(left !== Infinity ? { maxCredits: left } : {}),
      signal: extra.signal,
      onPlanned: (documents) => progress.planned(documents),
      events: { chunkDone: (doc, _done, total) => progress.chunkDone(doc, total) },
    });
    ctx.outs.add(out);
    for await (const outcome of run) {
      // A document sent in parts is reported without data: its data is its parts', read back from its one result file.
      // A result put in object storage is named by its s3:// address (the run's own file is the state folder's copy).
      const read = isObjectUri(out) || outcome.parts ? await resultOfOutcome(ctx.client, outcome) : undefined;
      answer.add(read ? { ...outcome, output: read.output } : outcome, partsOf(read));
      progress.documentFinished(outcome);
    }
    const report = await run.done;
    ctx.spent(report.credits);
    return answer.finish(report);
  } catch (error) {
    return failedWith(error);
  }
}

/** The call's schemas (each file inside the allowed folders), before the server's own for types they do not name. */
async function callChecker(specs: readonly string[], ctx: ExtractCallContext): Promise<ResultChecker> {
  const rules = parsed(() => SchemaRules.parse(specs));
  const files = rules.rules.map((rule) => rule.file);
  // A schema is a local file: an s3:// root allows documents, not schemas (the address would be read as a path below cwd).
  const object = files.find(isObjectUri);
  if (object !== undefined) throw new PathNotAllowedError(`${object}: a schema is read from a file inside the allowed folders, not from object storage`);
  await ctx.folders.checkInputs(files);
  const { loadSchemaChecker } = await import('../library/check.js');
  const own = await loadSchemaChecker(rules, ctx.client.cwd);
  const server = ctx.base.checker;
  return { check: (type, data) => own.check(type, data) ?? server?.check(type, data) };
}

function parsed<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw Object.assign(new Error(`schemas: ${error instanceof Error ? error.message : String(error)}`), { code: 'invalid_schema' });
  }
}
