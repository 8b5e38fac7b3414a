/**
 * A job of a page selection is known by its source's sha256 and its pages,
 * never by the bytes of the cut: after kill -9, the same selection finishes
 * the job without a new upload, and another selection of the same file is
 * another question. The killed command is a process; the commands after it
 * run in this process, as the next command a user types would.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReceivedUpload, RunningEmulator } from '../../src/emulator/index.js';
import { startChildCli } from '../helpers/child-run.js';
import { emulatorEnv, readJournal, startTestEmulator } from '../helpers/emulator-run.js';
import { runCli } from '../helpers/run-cli.js';
import { holdDocumentsUntilReleased } from '../helpers/held-answers.js';
import { labelledPdf } from '../helpers/make-pdf.js';
import { pageTexts } from '../helpers/pdf-pages.js';
import { makeWorkspace, sha256Of } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('kill -9 during a selection', () => {
  it('the rerun finishes the open job of the same pages without uploading again; other pages are a new upload', async () => {
    const uploads: ReceivedUpload[] = [];
    // Two chunks are answered; every later answer waits until the first command is dead: the kill lands
    // with the job open, whatever the machine's speed (it once had to land within about 0.5 s). The hold
    // orders the test, so the service adds no latency to its answers.
    let processAnswers = 0;
    let holding = true;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    emulator = await startTestEmulator({
      onUpload: (upload) => uploads.push(upload),
      holdAnswer: (endpoint) => (holding && endpoint === 'process' && ++processAnswers > 2 ? held : undefined),
    });
    const ws = makeWorkspace({ 'thirty.pdf': 'pdf/pages-30.pdf' });
    const env = emulatorEnv(emulator);
    const args = ['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', '--concurrency', '2', '--pages', '4-27'];

    const first = startChildCli(args, env);
    await waitFor(() => emulator!.counters.requestsByEndpoint.process >= 3, 'two chunks answered and a third asked');
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    holding = false;
    release();
    const manifest = readJournal(env.DOCEXTRACT_STATE_DIR as string).find((record) => record.type === 'manifest');
    // The journal names the source, not the cut.
    expect(manifest).toMatchObject({ sha256: sha256Of(join(ws.inputs, 'thirty.pdf')), sourcePages: Array.from({ length: 24 }, (_, i) => i + 4) });

    // Other pages of the same file: another question, whatever job is open for these.
    const other = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', '--pages', '4-26'], { env });
    expect(other.code).toBe(0);
    expect(uploads).toHaveLength(2);

    const second = await runCli(args, { env });
    expect(second.code).toBe(0);
    expect(uploads).toHaveLength(2);
    expect(emulator.counters.creditsCharged).toBe(23 + 24);
    const source = await pageTexts(readFileSync(join(ws.inputs, 'thirty.pdf')));
    expect(await pageTexts(uploads[0]!.bytes)).toEqual(source.slice(3, 27));
    expect(await pageTexts(uploads[1]!.bytes)).toEqual(source.slice(3, 26));
    for (const [name, last] of [
      ['thirty.pdf.p4-27.json', 27],
      ['thirty.pdf.p4-26.json', 26],
    ] as const) {
      const result = JSON.parse(readFileSync(join(ws.out, name), 'utf8')) as { status: string; source_pages: number[] };
      expect(result.status).toBe('complete');
      expect(result.source_pages).toEqual(Array.from({ length: last - 3 }, (_, i) => i + 4));
    }
  });
});

describe('kill -9 between parts', () => {
  it('the rerun sends no finished part again, resumes the open ones, and writes the one result', async () => {
    const uploads: ReceivedUpload[] = [];
    // The part uploaded first runs free; every chunk of the others waits for the test. The kill lands with
    // one part finished and another's job journaled and open, whatever the machine's speed (it used to land
    // after a 10 ms poll, and a run with no job journaled never checked the resume).
    const otherParts = holdDocumentsUntilReleased(['process']);
    let answeredProcess = 0;
    emulator = await startTestEmulator({
      holdDocument: otherParts.holdDocument,
      onUpload: (upload) => {
        if (uploads.length > 0) otherParts.hold(upload.sha256);
        uploads.push(upload);
      },
      onRequest: (entry) => entry.endpoint === 'process' && (answeredProcess += 1),
    });
    const ws = makeWorkspace({});
    mkdirSync(ws.inputs, { recursive: true });
    writeFileSync(join(ws.inputs, 'ledger.pdf'), await labelledPdf('Ledger', 320));
    const env = emulatorEnv(emulator);
    const stateDir = env.DOCEXTRACT_STATE_DIR as string;
    const args = ['extract', ws.inputs, '--out', ws.out, '--json', '--rate-limit', 'none', '--concurrency', '2'];
    const partsOnDisk = (): string[] => ['1-150', '151-300', '301-320'].filter((pages) => existsSync(join(ws.out, '.parts', `ledger.pdf.p${pages}.json`)));
    const journaledParts = (): string[] =>
      readJournal(stateDir)
        .filter((record) => record.type === 'manifest')
        .map((record) => `${(record.sourcePages as number[])[0]}-${(record.sourcePages as number[]).at(-1)}`);

    const first = startChildCli(args, env);
    await waitFor(
      () => partsOnDisk().length > 0 && journaledParts().some((pages) => !partsOnDisk().includes(pages)),
      'a part finished and another one journaled, its chunks held',
      60_000,
    );
    first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    expect(existsSync(join(ws.out, 'ledger.pdf.json'))).toBe(false);
    // What the first run had made durable: finished parts, and parts whose job it journaled (open ones among them).
    const finished = partsOnDisk();
    const journaled = journaledParts();
    const open = journaled.filter((pages) => !finished.includes(pages));
    expect(finished.length).toBeGreaterThanOrEqual(1);
    expect(open.length).toBeGreaterThanOrEqual(1);
    // The chunks the dead command asked for are processed now, their claims let go before the rerun asks.
    const asked = emulator.counters.requestsByEndpoint.process;
    otherParts.release();
    await waitFor(() => answeredProcess === asked, 'the abandoned chunks answered');

    const second = await runCli(args, { env });
    expect(second.code).toBe(0);
    const sentParts = await Promise.all(uploads.map(async (upload) => firstAndLast(await pageTexts(upload.bytes))));
    // No finished part, and no part with a journaled job, is sent again. (An upload whose answer the
    // kill cut off left no trace but its intent: that part alone may be sent once more.)
    for (const pages of new Set([...finished, ...journaled]))
      expect(
        sentParts.filter((sent) => sent === pages),
        pages,
      ).toHaveLength(1);
    expect(new Set(sentParts)).toEqual(new Set(['1-150', '151-300', '301-320']));
    expect(emulator.counters.creditsCharged).toBe(320);
    const result = JSON.parse(readFileSync(join(ws.out, 'ledger.pdf.json'), 'utf8')) as { status: string; parts: { source_pages: number[] }[] };
    expect(result.status).toBe('complete');
    expect(result.parts.flatMap((part) => part.source_pages)).toEqual(Array.from({ length: 320 }, (_, i) => i + 1));
  }, 90_000);
});

/** "Ledger page 1 of 320" ... "Ledger page 150 of 320" -> "1-150". */
function firstAndLast(texts: readonly string[]): string {
  const page = (text: string | undefined): string => /page (\d+) of/.exec(text ?? '')?.[1] ?? '?';
  return `${page(texts[0])}-${page(texts.at(-1))}`;
}
