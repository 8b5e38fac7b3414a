/**
 * An agent reads back what it extracted (issue 52): a 151-page statement is
 * sent in two parts (pages 1-150 and 151), and its one result file lists
 * them, with `data: null` of its own. The extract answer and the result tool
 * give its data as the list of its parts, each with its source pages, never
 * merged. And the server says how its tools go together, and which of them
 * only read. The real `docextract mcp` in this process, with the SDK's client.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { emulatorEnv, startTestEmulator } from '../helpers/emulator-run.js';
import { labelledPdf } from '../helpers/make-pdf.js';
import { startMcpInProcess, type McpSession } from '../helpers/mcp-run.js';
import { makeWorkspace } from '../helpers/workspace.js';

let emulator: RunningEmulator | undefined;
let session: McpSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
  await emulator?.close();
  emulator = undefined;
});

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

interface PartLine {
  source_pages: number[];
  status: string;
  result_file: string | null;
  data: unknown;
}

describe('MCP: a document in parts', () => {
  it('extract and result give its data as its parts, each with its source pages', async () => {
    emulator = await startTestEmulator();
    const ws = makeWorkspace({ 'receipt.jpg': 'images/receipt.jpg' });
    mkdirSync(ws.inputs, { recursive: true });
    const statement = join(ws.inputs, 'statement.pdf');
    writeFileSync(statement, await labelledPdf('Statement', 151));
    session = await startMcpInProcess({ out: ws.out, env: emulatorEnv(emulator) });

    const extracted = await session.client.callTool({ name: 'extract', arguments: { paths: [ws.inputs] } });
    expect(extracted.isError, JSON.stringify(extracted.structuredContent)).toBeFalsy();
    const answer = extracted.structuredContent as { counts: Record<string, number>; documents: Record<string, unknown>[] };
    expect(answer.counts).toEqual({ complete: 2 });
    const line = answer.documents.find((document) => String(document.file).endsWith('statement.pdf'));
    expect(line).toMatchObject({ status: 'complete', in_parts: true });
    // 151 pages of data pass the answer's data budget: it says so, and the result tool reads it.
    if (line?.data_left_out !== true) expect((line?.data as PartLine[]).map((part) => part.source_pages)).toEqual([range(1, 150), [151]]);

    // By the source, as an agent names what it gave; the answer is sliced past the data budget.
    const read = await session.client.callTool({ name: 'result', arguments: { path: statement } });
    expect(read.isError, JSON.stringify(read.structuredContent)).toBeFalsy();
    const result = read.structuredContent as { in_parts?: boolean; data?: unknown; data_json?: string; next_offset?: number | null };
    expect(result.in_parts).toBe(true);
    let text = result.data === undefined ? (result.data_json ?? '') : JSON.stringify(result.data);
    for (let next = result.next_offset; typeof next === 'number';) {
      const slice = (await session.client.callTool({ name: 'result', arguments: { path: statement, offset: next } })).structuredContent as {
        data_json: string;
        next_offset: number | null;
      };
      text += slice.data_json;
      next = slice.next_offset;
    }
    const parts = JSON.parse(text) as PartLine[];
    expect(parts.map((part) => part.source_pages)).toEqual([range(1, 150), [151]]);
    for (const part of parts) {
      expect(part.status).toBe('complete');
      expect(part.data).toMatchObject({ document_type: expect.any(String) });
      expect(part.result_file).toMatch(/statement\.pdf\.p[-0-9]+\.json$/);
    }
  });

  it('says how its tools go together, and marks which only read', async () => {
    emulator = await startTestEmulator();
    const ws = makeWorkspace({});
    mkdirSync(ws.out, { recursive: true });
    session = await startMcpInProcess({ out: ws.out, env: emulatorEnv(emulator) });
    expect(session.client.getInstructions()).toMatch(/models[\s\S]*extract[\s\S]*result[\s\S]*in_parts[\s\S]*jobs/);
    const { tools } = await session.client.listTools();
    const annotations = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
    for (const name of ['result', 'models', 'jobs']) expect(annotations[name]).toMatchObject({ readOnlyHint: true });
    expect(annotations.extract).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true });
  });
});
