/**
 * `docextract mcp`: the engine served to AI agents over the Model Context
 * Protocol (stdio). The tools run the library with the user's key, limits
 * and state folder, so an agent's extractions share the gate, the journal
 * and pay-once with every other docextract run on this machine.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { z } from 'zod';
import type { ApiClient } from '../api/client.js';
import { errorCodeOf } from '../api/error-code.js';
import type { DocumentOutcome } from '../batch/batch-types.js';
import { accountId } from '../store/account-id.js';
import { listJobs } from '../features/list-jobs.js';
import { extractDocuments, type ExtractDocumentsOptions } from '../library/extract-documents.js';
import { plural } from '../util/plural.js';
import { VERSION } from '../util/version.js';
import { SerialRuns } from './serial-runs.js';

export interface McpServerOptions {
  /** What every extraction runs with (key, service, limits, state folder, output folder); a tool call may name its own `model` and `out`. */
  extract: ExtractDocumentsOptions & { baseUrl: string; stateDir: string };
  /** Credits the whole session may spend (`--max-credits`): each extraction gets what is left. @default no limit */
  maxCredits?: number;
  /** The client for `models`. */
  client: () => Promise<ApiClient>;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The MCP server with docextract's tools; connect it to a transport (stdio for `docextract mcp`). */
export function createMcpServer(options: McpServerOptions): McpServer {
  const server = new McpServer({ name: 'docextract', version: VERSION });
  const runs = new SerialRuns();
  let spent = 0;

  server.registerTool(
    'extract',
    {
      title: 'Extract documents',
      description:
        'Extract structured JSON from PDFs and images (invoices, ID documents, payslips, statements). Each result is also written to a JSON file. Content already extracted with the same model costs nothing; open jobs of interrupted runs are resumed. Long extractions report progress and can be cancelled (work done is kept).',
      inputSchema: {
        paths: z.array(z.string().min(1)).min(1).describe('Files, folders (searched recursively) or glob patterns; relative paths are relative to the server’s working folder'),
        model: z.string().min(1).optional().describe('Document type (see the models tool), e.g. "invoice"; or GLOB=TYPE rules separated by ";". Default: the user’s configured models, else the service’s default (invoice)'),
        out: z.string().min(1).optional().describe('Folder for the result files. Default: the user’s configured output folder'),
        force: z.boolean().optional().describe('Extract again even when a result on disk answers it (costs credits again)'),
      },
    },
    async ({ paths, model, out, force }, extra) =>
      runs.next(async () => {
        const left = options.maxCredits === undefined ? undefined : options.maxCredits - spent;
        if (left !== undefined && left <= 0) return failed('budget_exhausted', `the credit budget of this server (--max-credits ${options.maxCredits}) is spent`);
        const progress = progressReporter(extra);
        try {
          const run = extractDocuments(paths, {
            ...options.extract,
            ...(model ? { model: model.split(';').map((rule) => rule.trim()).filter(Boolean) } : {}),
            ...(out ? { out } : {}),
            ...(force ? { force } : {}),
            ...(left !== undefined ? { maxCredits: left } : {}),
            signal: extra.signal,
            events: { chunkDone: (doc, done, total) => progress(`${doc.displayPath}: chunk ${done} of ${total}`) },
          });
          const documents: DocumentOutcome[] = [];
          for await (const outcome of run) {
            documents.push(outcome);
            progress(`${outcome.status} ${outcome.file}`);
          }
          const report = await run.done;
          spent += report.credits;
          return extracted(documents, report);
        } catch (error) {
          return failed(codeOf(error), error instanceof Error ? error.message : String(error));
        }
      }, extra.signal),
  );

  server.registerTool(
    'models',
    { title: 'List document types', description: 'The document types (models) this key may use: the names the extract tool accepts as model.', inputSchema: {} },
    async () => {
      try {
        const list = await (await options.client()).models();
        return { content: [{ type: 'text', text: JSON.stringify(list.data.models, null, 2) }], structuredContent: { models: list.data.models } };
      } catch (error) {
        return failed(codeOf(error), error instanceof Error ? error.message : String(error));
      }
    },
  );

  server.registerTool(
    'jobs',
    {
      title: 'Open jobs',
      description: 'Multi-page jobs left open on the service by interrupted runs (each costs a job slot until it is finished or expires), and files of the last run that did not complete. Sends nothing.',
      inputSchema: {},
    },
    async () => {
      const overview = await listJobs({
        stateDir: options.extract.stateDir,
        account: accountId(options.extract.baseUrl, options.extract.apiKey),
        nowMs: Date.now(),
        ttlMs: options.extract.settings?.ttlMs ?? 2 * 3_600_000,
      });
      const summary = { jobs: overview.jobs, unanswered_uploads: overview.unanswered, failed_files: overview.failedFiles };
      return { content: [{ type: 'text', text: JSON.stringify(summary, null, 2) }], structuredContent: summary };
    },
  );
  return server;
}

/** Progress notifications, when the client asked for them (a progress token); each call is one step further. */
function progressReporter(extra: Extra): (message: string) => void {
  const token = extra._meta?.progressToken;
  let progress = 0;
  return (message) => {
    if (token === undefined) return;
    progress += 1;
    extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message } }).catch(() => undefined);
  };
}

function extracted(documents: DocumentOutcome[], report: { credits: number; requests: number; interrupted: boolean }): CallToolResult {
  const lines = documents.map((outcome) => ({
    file: outcome.file,
    status: outcome.status,
    output: outcome.output,
    ...(outcome.data !== undefined ? { data: outcome.data } : {}),
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(outcome.missing_pages ? { missing_pages: outcome.missing_pages } : {}),
    ...(outcome.checks ? { checks: outcome.checks } : {}),
    ...(outcome.reused ? { reused: outcome.reused } : {}),
  }));
  const complete = documents.filter((outcome) => outcome.status === 'complete').length;
  const summary = `${complete} of ${plural(documents.length, 'document')} complete, ${plural(report.credits, 'credit')} spent${report.interrupted ? '; cancelled: run the same extraction again to finish (nothing done is paid twice)' : ''}`;
  const result = { summary, credits: report.credits, requests: report.requests, interrupted: report.interrupted, documents: lines };
  return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }], structuredContent: result };
}

function failed(code: string, message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `${message} (${code})` }], structuredContent: { error: { code, message } } };
}

/** The error's own code (unknown_model, state_locked, invalid_api_key, ...), else the API error's. */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : errorCodeOf(error);
}
