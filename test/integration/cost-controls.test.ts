import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';
import { runCliOnFakeClock } from '../helpers/fake-clock-cli.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { isolatedEnv, runCli } from '../helpers/run-cli.js';
import { expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../helpers/workspace.js';

const KEY = 'sk_0123456789abcdef0123456789abcdef';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function start(options: EmulatorOptions = {}): Promise<{ emu: RunningEmulator; env: NodeJS.ProcessEnv }> {
  emulator = await startEmulator({ keys: [KEY], rateLimits: [], ...options });
  return { emu: emulator, env: isolatedEnv({ DOCEXTRACT_BASE_URL: emulator.url, DOCEXTRACT_API_KEY: KEY }) };
}

describe('cost controls', () => {
  it('--max-credits stops admitting files before the limit would be passed, and exits 4', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-3.pdf', 'b.pdf': 'pdf/pages-2.pdf', 'c.pdf': 'pdf/pages-4.pdf' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--max-credits', '6', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(4);
    const lines = parseNdjson(run.stdout);
    expect(lines).toHaveLength(3);
    expect(emu.counters.creditsCharged).toBeLessThanOrEqual(6);
    expect(lines.filter((line) => line.status === 'skipped')).not.toHaveLength(0);
    expect(lines.find((line) => line.status === 'skipped')).toMatchObject({ error: { code: 'max_credits_reached' } });
    expect(run.stderr).toContain('max_credits_reached');
  });

  it('insufficient_credits stops admitting, keeps what was done, and exits 4', async () => {
    const { emu, env } = await start({ keys: [{ key: KEY, credits: 4 }] });
    const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-3.pdf', 'b.pdf': 'pdf/pages-12.pdf', 'c.png': 'images/id-card.png' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--concurrency', '1', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(4);
    const lines = parseNdjson(run.stdout);
    expect(lines.some((line) => line.status === 'complete')).toBe(true);
    expect(lines.some((line) => (line.error as { code?: string } | undefined)?.code === 'insufficient_credits')).toBe(true);
    expect(emu.counters.creditsCharged).toBeLessThanOrEqual(4);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('files skipped when the request cap stops a run say so as the run stopping, not as their own answer', async () => {
    const { env } = await start({ keys: [{ key: KEY, allowedRequests: 3 }] });
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-7.pdf', 'a.png': 'images/id-card.png', 'b.jpg': 'images/receipt.jpg' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--concurrency', '1', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(4);
    const skipped = parseNdjson(run.stdout).filter((line) => line.status === 'skipped');
    expect(skipped.length).toBeGreaterThan(0);
    for (const line of skipped) {
      const message = (line.error as { message: string }).message;
      expect(message).toMatch(/^not sent: uploads stopped \(usage_limit_exceeded\): the service refused .*long\.pdf \(process: HTTP 402 usage_limit_exceeded/);
    }
  });

  it('--model and --store travel in the options field: the result names the model and carries an extraction_id', async () => {
    const { env } = await start();
    const ws = makeWorkspace({ 'slip.pdf': 'pdf/pages-1.pdf' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--model', 'payslip', '--store', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(0);
    const [line] = parseNdjson(run.stdout);
    expect(line).toMatchObject({ status: 'complete', model: 'payslip' });
    expect(line?.extraction_id).toEqual(expect.any(String));
    expect((line?.data as { document_type?: string }).document_type).toBe('payslip');
  });

  it('when models cannot answer, the run says so and goes on: a wrong name is then the per-file unknown_model of the service', async () => {
    const { emu, env } = await start({ faults: { models: { server_error: 1 } } });
    const ws = makeWorkspace({ 'slip.pdf': 'pdf/pages-1.pdf' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--model', 'no-such-template', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the document types were not checked before sending');
    expect(parseNdjson(run.stdout)[0]).toMatchObject({ status: 'failed', error: { code: 'unknown_model' } });
    expect(emu.counters.requestsByEndpoint.models).toBe(1);
  });

  it('a misspelled document type in a rule stops the run before anything is printed or written, even when every file is answered on disk', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ 'ids/card.png': 'images/id-card.png', 'inv/a.pdf': 'pdf/pages-2.pdf' });
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    const other = join(ws.dir, 'elsewhere');
    const before = { ...emu.counters.requestsByEndpoint };
    const run = await runCli(['extract', ws.inputs, '--out', other, '--json', '--model', 'ids/**=idcard', '--model', 'invoice', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(JSON.parse(run.stderr)).toMatchObject({
      error: { code: 'unknown_model', message: expect.stringContaining('unknown document type "idcard"; did you mean "id_card"?') },
    });
    expect(existsSync(other)).toBe(false); // no copy of a known answer was written
    const { documents, process, result } = emu.counters.requestsByEndpoint;
    expect({ documents, process, result }).toEqual({ documents: before.documents, process: before.process, result: before.result });
  });

  it('--dry-run checks the names it plans with: a misspelled one is exit 2, nothing planned', async () => {
    const { env } = await start();
    const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-2.pdf' });
    const run = await runCli(['extract', ws.inputs, '--dry-run', '--model', 'invoise'], { env });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('unknown document type "invoise"; did you mean "invoice"?');
  });

  it('a second run whose files are all answered on disk sends nothing at all, not even the free model check', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ 'slip.pdf': 'pdf/pages-1.pdf' });
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    const before = { ...emu.counters.requestsByEndpoint };
    expect((await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env })).code).toBe(0);
    expect(emu.counters.requestsByEndpoint).toEqual(before);
  });
});

describe('answers that cannot be read', () => {
  it('a documents 200 too large to read fails the file, is not sent again, and counts its pages as probably charged', async () => {
    const { emu, env } = await start({ faults: { documents: { oversized_body: 1 } }, oversizeBytes: 70 * 1024 * 1024 });
    const ws = makeWorkspace({ 'scan.png': 'images/id-card.png' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(1);
    const line = parseNdjson(run.stdout)[0];
    expect(line).toMatchObject({ status: 'failed', credits: 1, error: { code: 'response_too_large' } });
    expect((line?.error as { message: string }).message).toContain('has probably charged 1 credit for it (not sent again)');
    expect(emu.counters.requestsByEndpoint.documents).toBe(1);
    expect(emu.counters.creditsCharged).toBe(1);
  });

  it('a collected result in the wrong shape is read again (free), not written as partial', async () => {
    // Seed 1: the first result answer (the collect) loses a field the schema needs; then the fault goes.
    const { emu, env } = await start({
      seed: 1,
      faults: { result: { wrong_field: 1 } },
      onRequest: (entry) => entry.fault === 'wrong_field' && emu.setFaults({}),
    });
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-7.pdf' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--concurrency', '1', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(parseNdjson(run.stdout)[0]).toMatchObject({ status: 'complete', credits: 7 });
    expectCompleteResult(join(ws.out, 'long.pdf.json'), join(ws.inputs, 'long.pdf'), 7);
    // The garbled collect, the collect again, and the finalize.
    expect(emu.counters.requestsByEndpoint.result).toBe(3);
    expect(emu.counters.faultsInjected['result.wrong_field']).toBe(1);
  });

  it.each(['gzip_bomb', 'oversized_body'] as const)(
    'a split manifest lost to %s costs nothing: the file is uploaded again, completes, and counts only its pages',
    async (kind) => {
      // Only the first 202 lies. The emulator answers a 7-page PDF with a split, which charges nothing.
      // The lie is 4 MiB on a 1 MiB documents cap: against the default cap (64 MiB) the client inflated
      // 64 MiB of the bomb before refusing it, and what is shown here is what a lost manifest costs, not the cap.
      const { emu, env } = await start({
        faults: { documents: { [kind]: 1 } },
        oversizeBytes: 4 * 1024 * 1024,
        onRequest: (entry) => entry.fault === kind && emu.setFaults({}),
      });
      const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-7.pdf' });
      const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], {
        env,
        responseCaps: { documents: 1024 * 1024 },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(parseNdjson(run.stdout)[0]).toMatchObject({ status: 'complete', pages: 7, credits: 7 });
      expectCompleteResult(join(ws.out, 'long.pdf.json'), join(ws.inputs, 'long.pdf'), 7);
      expect(emu.counters.faultsInjected[`documents.${kind}`]).toBe(1);
      expect(emu.counters.requestsByEndpoint.documents).toBe(2);
      expect(emu.counters.creditsCharged).toBe(7);
    },
  );
});

describe('start of a run', () => {
  it('an unreachable service stops the run at its keyless warm-up (tried three times), before anything is paid for', async () => {
    const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-2.pdf' });
    const env = isolatedEnv({ DOCEXTRACT_BASE_URL: 'https://docextract.invalid', DOCEXTRACT_API_KEY: KEY });
    // On a fake clock: the warm-up's pauses between its tries (0.5 s, then 1 s) cost no real time.
    const run = await runCliOnFakeClock(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], env, new FakeClock());
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('network_error');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it.each(['reset_before', 'trickle_stop', 'html_502', 'oversized_body'] as const)(
    'every health answer lost to %s: the service is there, so the batch goes on without the warm-up',
    async (kind) => {
      const { emu, env } = await start({ faults: { health: { [kind]: 1 } }, slowMs: 20, oversizeBytes: 2 * 1024 * 1024 });
      const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-2.pdf' });
      const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env });
      expect(run.code, run.stderr).toBe(0);
      expect(parseNdjson(run.stdout)).toMatchObject([{ status: 'complete' }]);
      // Asked once: only a refused connection is asked again.
      expect(emu.counters.requestsByEndpoint.health).toBe(1);
      expect(emu.counters.faultsInjected[`health.${kind}`]).toBe(1);
    },
  );
});

describe('output failures', () => {
  it('stops admitting files once results cannot be written: nothing more is paid for and lost', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({
      'a.png': 'images/id-card.png',
      'b.png': 'images/logo-with-alpha.png',
      'c.jpg': 'images/receipt.jpg',
      'd.pdf': 'pdf/pages-1.pdf',
      'e.pdf': 'pdf/pages-2.pdf',
    });
    let broken = false;
    emu.events.on('event', (event: { type: string }) => {
      if (event.type !== 'upload' || broken) return;
      broken = true;
      rmSync(ws.out, { recursive: true, force: true });
      writeFileSync(ws.out, 'a regular file where the output folder was');
    });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--concurrency', '1', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(1);
    const lines = parseNdjson(run.stdout);
    expect(lines).toHaveLength(5);
    expect(lines.filter((line) => line.status === 'failed')).toHaveLength(1);
    expect(lines.filter((line) => line.status === 'skipped').map((line) => (line.error as { code: string }).code)).toEqual([
      'output_write_failed',
      'output_write_failed',
      'output_write_failed',
      'output_write_failed',
    ]);
    expect(emu.counters.requestsByEndpoint.documents).toBe(1);
    expect(run.stderr).toContain('no further files are admitted');
  });
});

describe('job lifecycle', () => {
  it('--no-finalize keeps the job on the server; a later run without it finalizes and uploads nothing', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-7.pdf' });
    const kept = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--no-finalize', ...UNTHROTTLED_FLAGS], { env });
    expect(kept.code).toBe(0);
    expect(emu.counters.finalizedJobs).toBe(0);
    expectCompleteResult(join(ws.out, 'long.pdf.json'), join(ws.inputs, 'long.pdf'), 7);
    const again = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--no-finalize', ...UNTHROTTLED_FLAGS], { env });
    expect(again.code).toBe(0);
    expect(emu.counters.finalizedJobs).toBe(0);
    const finalized = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(finalized.code).toBe(0);
    expect(emu.counters.finalizedJobs).toBe(1);
    expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'long.pdf'))]).toBe(1);
    expect(emu.counters.creditsCharged).toBe(7);
  });

  it('410 chunk_source_lost uploads the file again once, then gives up with the code', async () => {
    const { emu, env } = await start({ faults: { process: { chunk_source_lost: 1 } }, seed: 3 });
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-7.pdf' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(1);
    expect(parseNdjson(run.stdout)[0]).toMatchObject({ status: 'failed', error: { code: 'chunk_source_lost' } });
    expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'long.pdf'))]).toBe(2);
    expect(emu.counters.creditsCharged).toBe(0);
  });

  it('a job expired on the server is uploaded again as a new job and completes', async () => {
    const { emu, env } = await start();
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-12.pdf' });
    // Expire the first job as soon as its first chunk is processed (the emulator emits events while
    // it handles the request): one chunk done, three left, whatever the timing.
    let firstJob: string | undefined;
    let chunksBeforeExpiry = 0;
    emu.events.on('event', (event: { type: string; jobId?: string }) => {
      if (event.type === 'split' && firstJob === undefined) firstJob = event.jobId;
      if (event.type === 'chunk_processed' && firstJob !== undefined && chunksBeforeExpiry === 0) {
        chunksBeforeExpiry += 1;
        emu.expireJob(firstJob);
      }
    });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--json', '--concurrency', '1', ...UNTHROTTLED_FLAGS], { env });
    expect(run.code).toBe(0);
    expectCompleteResult(join(ws.out, 'long.pdf.json'), join(ws.inputs, 'long.pdf'), 12);
    expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'long.pdf'))]).toBe(2);
    expect(emu.counters.expiredJobs).toBe(1);
    expect(chunksBeforeExpiry).toBe(1);
    expect(run.stderr).toContain('uploading it again');
  });
});
