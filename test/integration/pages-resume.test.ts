/**
 * A job of a page selection is known by its source's sha256 and its pages,
 * never by the bytes of the cut: after kill -9, the same selection finishes
 * the job without a new upload, and another selection of the same file is
 * another question.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReceivedUpload, RunningEmulator } from '../../src/emulator/index.js';
import { startChildCli } from '../helpers/child-run.js';
import { emulatorEnv, readJournal, startTestEmulator } from '../helpers/emulator-run.js';
import { pageTexts } from '../helpers/pdf-pages.js';
import { makeWorkspace, sha256Of } from '../helpers/workspace.js';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function waitFor(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await sleep(10);
  }
}

describe('kill -9 during a selection', () => {
  it('the rerun finishes the open job of the same pages without uploading again; other pages are a new upload', async () => {
    const uploads: ReceivedUpload[] = [];
    emulator = await startTestEmulator({ latencyMs: { process: 150 }, onUpload: (upload) => uploads.push(upload) });
    const ws = makeWorkspace({ 'thirty.pdf': 'pdf/pages-30.pdf' });
    const env = emulatorEnv(emulator);
    const args = ['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', '--concurrency', '2', '--pages', '4-27'];

    const first = startChildCli(args, env);
    await waitFor(() => emulator!.counters.requestsByEndpoint.process >= 2);
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    const manifest = readJournal(env.DOCEXTRACT_STATE_DIR as string).find((record) => record.type === 'manifest');
    // The journal names the source, not the cut.
    expect(manifest).toMatchObject({ sha256: sha256Of(join(ws.inputs, 'thirty.pdf')), sourcePages: Array.from({ length: 24 }, (_, i) => i + 4) });

    // Other pages of the same file: another question, whatever job is open for these.
    const other = await startChildCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', '--pages', '4-26'], env).done;
    expect(other.code).toBe(0);
    expect(uploads).toHaveLength(2);

    const second = await startChildCli(args, env).done;
    expect(second.code).toBe(0);
    expect(uploads).toHaveLength(2);
    expect(emulator.counters.creditsCharged).toBe(23 + 24);
    const source = await pageTexts(readFileSync(join(ws.inputs, 'thirty.pdf')));
    expect(await pageTexts(uploads[0]!.bytes)).toEqual(source.slice(3, 27));
    expect(await pageTexts(uploads[1]!.bytes)).toEqual(source.slice(3, 26));
    for (const [name, last] of [['thirty.pdf.p4-27.json', 27], ['thirty.pdf.p4-26.json', 26]] as const) {
      const result = JSON.parse(readFileSync(join(ws.out, name), 'utf8')) as { status: string; source_pages: number[] };
      expect(result.status).toBe('complete');
      expect(result.source_pages).toEqual(Array.from({ length: last - 3 }, (_, i) => i + 4));
    }
  });
});
