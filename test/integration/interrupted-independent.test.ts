/**
 * Item 1 of issue 41, held against a service that shares no code with our
 * emulator (test/helpers/independent-hostile-service.ts, written from the
 * spec alone): a forced run of 12 files, stopped with Ctrl-C while the
 * service holds the answer to one of its uploads, then resumed as its own
 * message says. The service's own records are the truth the state folder's
 * records are held against: what it received, and what it charged. The
 * forced run, stopped by a signal, is a process of its own; the commands
 * before and after it run in this process, on the same state folder.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TEST_KEY } from '../helpers/emulator-run.js';
import { startHostileService, type HostileService } from '../helpers/independent-hostile-service.js';
import { labelledPdf } from '../helpers/make-pdf.js';
import { startChildCli } from '../helpers/child-run.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { makeWorkspace, parseNdjson } from '../helpers/workspace.js';
import { waitFor } from '../helpers/wait-for.js';

let service: HostileService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

/** Files that `jobs --json` lists as uploads possibly open on the server (by name). */
async function possiblyOpenUploads(env: NodeJS.ProcessEnv): Promise<string[]> {
  const listed = await runCli(['jobs', '--json'], { env });
  expect(listed.code, listed.stderr).toBe(0);
  return parseNdjson(listed.stdout)
    .filter((line) => line.kind === 'unanswered-upload')
    .map((line) => String(line.file).split('/').pop() ?? '');
}

async function usageTotal(env: NodeJS.ProcessEnv): Promise<number> {
  const usage = await runCli(['usage', '--json'], { env });
  expect(usage.code, usage.stderr).toBe(0);
  return (JSON.parse(usage.stdout) as { total: { credits: number } }).total.credits;
}

function timesReceived(uploads: readonly string[]): Map<string, number> {
  const counted = new Map<string, number>();
  for (const name of uploads) counted.set(name, (counted.get(name) ?? 0) + 1);
  return counted;
}

describe('an interrupted forced run, against an independent service', () => {
  it('charges each page twice at most, lists no upload the service did not receive, and usage equals what the service charged', async () => {
    service = await startHostileService(TEST_KEY);
    const svc = service;
    const ws = makeWorkspace({});
    // Twelve files, each its own content: ten split (4 or 5 pages: two chunks each), two answered at once (2 pages).
    const pagesOf = (index: number): number => (index < 10 ? 4 + (index % 2) : 2);
    const names = Array.from({ length: 12 }, (_, index) => `f${String(index + 1).padStart(2, '0')}.pdf`);
    mkdirSync(ws.inputs, { recursive: true });
    for (const [index, name] of names.entries()) writeFileSync(join(ws.inputs, name), await labelledPdf(name, pagesOf(index)));
    const PAGES = names.reduce((sum, _, index) => sum + pagesOf(index), 0);
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: svc.url, DOCEXTRACT_API_KEY: TEST_KEY, DOCEXTRACT_RATE_LIMIT: 'none' });
    const command = ['extract', ws.inputs, '--out', ws.out, '--json', '--concurrency', '2', '--force'];

    const plain = await runCli(
      command.filter((arg) => arg !== '--force'),
      { env },
    );
    expect(plain.code, plain.stderr).toBe(0);
    expect(svc.charged()).toBe(PAGES);

    // The service holds the answers to the forced run's uploads from its fifth on: Ctrl-C once two are held
    // (both requests the run may have in flight), and the drain gets their answers once released.
    const held = svc.holdUpload(names.length + 5);
    const forced = startChildCli(command, env);
    await held.arrived;
    await waitFor(() => svc.uploads.length === names.length + 6, 'a second upload held');
    forced.child.kill('SIGINT');
    await waitFor(() => forced.stderrSoFar().includes('finishing the requests'), 'the forced run to drain');
    held.release();
    const stopped = await forced.done;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toMatch(/run(ning)? the same command again/i);
    // Two requests at a time, both held: the files after them were never sent.
    expect(svc.uploads).toHaveLength(names.length + 6);
    const receivedBefore = new Set(svc.uploads);
    for (const file of await possiblyOpenUploads(env)) expect(receivedBefore, `${file} is listed as possibly open`).toContain(file);
    expect(await usageTotal(env)).toBe(svc.charged());

    const resumed = await runCli(command, { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(parseNdjson(resumed.stdout).filter((line) => line.status === 'complete')).toHaveLength(12);
    for (const [name, times] of timesReceived(svc.uploads)) expect(times, `${name} uploaded once before --force, once forced`).toBeLessThanOrEqual(2);
    expect(svc.charged(), 'each page charged once before --force and once forced').toBe(2 * PAGES);
    const receivedAfter = new Set(svc.uploads);
    for (const file of await possiblyOpenUploads(env)) expect(receivedAfter, `${file} is listed as possibly open`).toContain(file);
    expect(await usageTotal(env)).toBe(svc.charged());
  });
});
