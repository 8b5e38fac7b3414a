/**
 * A command's side of a shared run, against a host that is only a socket:
 * what it sends, in how many lines, and when it is done.
 */
import { mkdtempSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DocumentOutcome, PlannedDocument } from '../../../src/batch/batch-types.js';
import { ClientBatch, SUBMIT_AT_ONCE } from '../../../src/engine/host/client-batch.js';
import { readMessages, send, type ClientMessage } from '../../../src/engine/host/protocol.js';

function doc(i: number): PlannedDocument {
  const name = `f${i}.png`;
  return {
    path: `/in/${name}`,
    displayPath: name,
    sha256: i.toString(16).padStart(64, '0'),
    size: 1,
    type: 'png',
    contentType: 'image/png',
    pages: 1,
    output: `/out/${name}.json`,
  };
}

function outcome(d: PlannedDocument): DocumentOutcome {
  return { file: d.displayPath, status: 'complete', pages: 1, model: 'invoice', output: d.output, job_id: null, extraction_id: null, warnings: [], credits: 1 };
}

const who = { pid: 1, command: 'docextract extract in', terms: {} };
let server: Server | undefined;
afterEach(() => server?.close());

/** A host that welcomes the command and, when `answer`, finishes each submitted document at once. */
async function fakeHost(answer: boolean): Promise<{ socket: Socket; submits: number[]; ids: number[] }> {
  const path = join(mkdtempSync(join(tmpdir(), 'docextract-client-batch-')), 'host.sock');
  const seen = { submits: [] as number[], ids: [] as number[] };
  server = createServer((side) => {
    readMessages<ClientMessage>(side, (message) => {
      if (message.type === 'hello') send(side, { type: 'welcome', hostPid: 2 });
      if (message.type !== 'submit') return;
      seen.submits.push(message.documents.length);
      for (const submitted of message.documents) {
        seen.ids.push(submitted.id);
        if (answer) send(side, { type: 'finished', id: submitted.id, outcome: outcome(submitted) });
      }
    });
  });
  await new Promise<void>((resolve) => server?.listen(path, resolve));
  const socket = connect(path);
  await new Promise((resolve) => socket.once('connect', resolve));
  return { socket, ...seen };
}

describe('ClientBatch', () => {
  it(`submits a large batch ${SUBMIT_AT_ONCE} documents a line, each once, and is done when every one came back`, async () => {
    const count = 2 * SUBMIT_AT_ONCE + 1;
    const documents = Array.from({ length: count }, (_, i) => doc(i));
    const host = await fakeHost(true);
    const finished: string[] = [];
    const batch = new ClientBatch({ documents, reuse: { force: false, dedupe: true } }, { documentFinished: (done) => finished.push(done.file) });
    const end = await batch.submit(host.socket, who, undefined);
    expect(host.submits).toEqual([SUBMIT_AT_ONCE, SUBMIT_AT_ONCE, 1]);
    expect(host.ids).toEqual(documents.map((_, i) => i));
    expect('done' in end && end.done.outcomes).toHaveLength(count);
    expect(finished).toHaveLength(count);
  });

  it('with nothing to submit (every file refused while checking) is done at the welcome: it sends nothing and waits on no host to close', async () => {
    const host = await fakeHost(false);
    const batch = new ClientBatch({ documents: [], reuse: { force: false, dedupe: true } }, { documentFinished: () => undefined });
    const end = await batch.submit(host.socket, who, undefined);
    expect(end).toEqual({ done: expect.objectContaining({ outcomes: [], requests: 0, credits: 0 }) });
    expect(host.submits).toEqual([]);
  });
});
