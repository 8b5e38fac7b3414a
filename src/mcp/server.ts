/**
 * `docextract mcp`: the engine served to AI agents over the Model Context
 * Protocol (stdio). The tools run the library with the user's key, limits
 * and state folder, so an agent's extractions share the gate, the journal
 * and pay-once with every other docextract run on this machine.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { resolve } from 'node:path';
import { z } from 'zod';
import type { DocExtract, ExtractionOptions } from '../index.js';
import { VERSION } from '../util/version.js';
import { AgentFolders } from './agent-folders.js';
import { extractCall, extractInput } from './extract-call.js';
import { EXTRACT_DATA_BUDGET, extractOutput } from './extract-answer.js';
import { jobsOutput, modelsOutput, type JobsAnswer } from './listing-outputs.js';
import { readOneResult, RESULT_DATA_BUDGET, resultOutput } from './read-result.js';
import { SerialRuns } from './serial-runs.js';
import { answer, failedWith } from './tool-answers.js';

/** What the server tells an agent at `initialize`: how the tools go together. */
const SERVER_INSTRUCTIONS = [
  'docextract extracts structured JSON from PDFs and images (invoices, ID documents, payslips, statements) with the Document Extraction Service, and writes one result file per document.',
  'To extract: call models once to learn the document types this key may use, then extract with the paths (files, folders or globs inside your roots) and, when you know it, the model. Each call costs credits (1 per page sent); content already extracted with the same model costs nothing again, so calling extract again on the same files is safe.',
  "Read the answer's documents: data is given up to a budget; for each document marked data_left_out, or not listed, call result with its output (or its source file). A document with in_parts (a PDF past the service's limits) has as data a list of its parts, each with its source pages: read them as parts, do not merge them. Large data comes in slices: call result again with offset = next_offset.",
  'After a cancelled or interrupted extraction, call extract again with the same paths: open jobs are resumed and nothing done is paid twice. jobs lists the open jobs and the files that did not complete; it sends nothing.',
].join('\n');

export interface McpServerOptions {
  /** The client every tool calls: the key, service, windows, state folder and run settings of every extraction. */
  client: DocExtract;
  /** What every extraction runs with (output folder, models, pages, schemas); a tool call may name its own model, pages, out and budget. */
  extract: ExtractionOptions & { out: string };
  /** Credits the whole session may spend (`--max-credits`): each extraction gets what is left. @default no limit */
  maxCredits?: number;
  /** Folders an agent may read and write in when its client declares no roots (`--allow`). @default the working folder and the output folder */
  allow?: readonly string[];
  /** The `s3://` roots an agent may extract objects from (`--allow-s3`), whatever roots its client declares; nothing outside them is listed or read. @default none */
  allowObjects?: readonly string[];
}

/** The MCP server with docextract's tools; connect it to a transport (stdio for `docextract mcp`). */
export function createMcpServer(options: McpServerOptions): McpServer {
  const server = new McpServer({ name: 'docextract', version: VERSION }, { instructions: SERVER_INSTRUCTIONS });
  const runs = new SerialRuns();
  const { cwd } = options.client;
  const { out } = options.extract;
  const folders = new AgentFolders(server.server, { folders: options.allow ?? [cwd, out], objectRoots: options.allowObjects ?? [], cwd, out });
  const outs = new Set([resolve(cwd, out)]);
  let spent = 0;

  server.registerTool(
    'extract',
    {
      title: 'Extract documents',
      description: `Extract structured JSON from PDFs and images (invoices, ID documents, payslips, statements) inside the allowed folders (the client's roots), or objects in object storage (s3://…) below the s3:// roots the user allowed when starting the server (--allow-s3; none by default): nothing outside them is listed or read. Each result is written to a JSON file, in out: a folder inside the allowed folders, or an s3:// prefix below the allowed s3:// roots (each result put at its key, its output then that s3:// address). The answer gives per document its status, result file and error code, and the data of the documents up to ${EXTRACT_DATA_BUDGET} characters in all; the data of the others is left out (listed in data_left_out): read each with the result tool. A PDF past the service's limits is sent in parts: its line has in_parts, and its data is a list of its parts, each with its source_pages and its own data (never merged). Content already extracted with the same model costs nothing; open jobs of interrupted runs are resumed. Reports progress (documents, and chunks within them) and can be cancelled (work done is kept). isError when no document could be extracted, with error.code.`,
      inputSchema: extractInput,
      outputSchema: extractOutput,
      // It writes result files and never deletes or overwrites anything but its own results; it calls the service.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    async (args, extra) =>
      runs.next(
        () =>
          extractCall(args, extra, {
            client: options.client,
            base: options.extract,
            folders,
            outs,
            creditsLeft: () => (options.maxCredits === undefined ? undefined : options.maxCredits - spent),
            spent: (credits) => (spent += credits),
          }),
        extra.signal,
      ),
  );

  server.registerTool(
    'result',
    {
      title: 'Read one result',
      description: `One document's result: its status, pages, checks and data, by its result file (an extract answer's output) or by its source file, inside the allowed folders or the output folder, or by an s3:// address (a result, or a source extracted to an s3:// out) below the s3:// roots the user allowed when starting the server (--allow-s3): nothing outside them is listed or read. A document extracted in parts (a PDF past the service's limits) has in_parts, and its data is a list of its parts, each with its source_pages, status, result_file and data. Data past ${RESULT_DATA_BUDGET} characters comes as a slice of its JSON text: call again with offset = next_offset for the rest.`,
      inputSchema: {
        path: z
          .string()
          .min(1)
          .describe('The result file (output of an extract answer: a path or an s3:// address), or the source document it was extracted from'),
        offset: z.number().int().min(0).optional().describe('Where the slice of a large result’s data JSON starts (next_offset of the last answer). Default 0'),
      },
      outputSchema: resultOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ path, offset }) => {
      try {
        await folders.checkResultPath(path);
        return await readOneResult(options.client, path, offset ?? 0, { outs: [...outs], checker: options.extract.checker });
      } catch (error) {
        return failedWith(error);
      }
    },
  );

  server.registerTool(
    'models',
    {
      title: 'List document types',
      description: 'The document types (models) this key may use: the names the extract tool accepts as model.',
      inputSchema: {},
      outputSchema: modelsOutput,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async () => {
      try {
        const list = await options.client.models();
        return answer({ models: list.data.models });
      } catch (error) {
        return failedWith(error);
      }
    },
  );

  server.registerTool(
    'jobs',
    {
      title: 'Open jobs',
      description:
        'Multi-page jobs left open on the service by interrupted runs (each costs a job slot until it is finished or expires), and files of the last run that did not complete: only those whose source lies inside the allowed folders (the client’s roots). Sends nothing.',
      inputSchema: {},
      outputSchema: jobsOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => {
      try {
        return answer(await jobsOverview());
      } catch (error) {
        return failedWith(error);
      }
    },
  );
  return server;

  async function jobsOverview(): Promise<JobsAnswer> {
    const overview = await options.client.jobs();
    // The state folder is the user's, shared by every run: an agent sees only what its roots hold.
    const inside = async <T>(entries: readonly T[], source: (entry: T) => string | undefined): Promise<T[]> => {
      const kept = await Promise.all(
        entries.map(async (entry) => {
          const path = source(entry);
          return path !== undefined && path !== '' && (await folders.inside(path));
        }),
      );
      return entries.filter((_entry, index) => kept[index]);
    };
    return {
      jobs: await inside(overview.jobs, (job) => job.file),
      unanswered_uploads: await inside(overview.unanswered, (upload) => upload.file),
      // A report without the source's absolute path (written before it was recorded) cannot be placed: left out.
      failed_files: await inside(overview.failedFiles, (file) => file.source),
    };
  }
}
