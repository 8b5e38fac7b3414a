/**
 * `docextract process <chunk>` beside a running command (README, "many
 * commands, one client"): it goes through the host, which refuses a chunk of
 * a job it is finishing itself with `chunk_in_progress` and sends nothing,
 * so two processes never race for one chunk. The host's job is held open at
 * the emulator (its chunk requests wait for the test); the chunk ids come
 * from the host's record (the manifest it journaled); the proof that nothing
 * was sent for the refused command is the emulator's request log (one
 * request a chunk) and its chunk events, read once the host has finished.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EmulatorEvent, EmulatorRequestLog } from '../../../src/emulator/index.js';
import { ExitCode } from '../../../src/cli/exit-codes.js';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, startTestEmulator } from '../../helpers/emulator-run.js';
import { commandRig, waitFor } from '../../helpers/one-client.js';
import { runCli } from '../../helpers/run-cli.js';
import { expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';

const rig = commandRig();

/** The chunks of the job the host journaled for `sha256`, once it has (undefined before). */
function journaledChunks(stateDir: string, sha256: string): string[] | undefined {
  let text: string;
  try {
    text = readFileSync(join(stateDir, 'journal.ndjson'), 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const record = JSON.parse(line) as { type: string; sha256?: string; chunks?: { jobId: string }[] };
    if (record.type === 'manifest' && record.sha256 === sha256) return record.chunks?.map((chunk) => chunk.jobId);
  }
  return undefined;
}

describe('process <chunk> beside a running command', () => {
  it(
    'a chunk of the job the host is finishing is refused with chunk_in_progress (exit 1), nothing is sent for it; the host finishes its job, each chunk processed once',
    { timeout: 120_000 },
    async () => {
      const ws = makeWorkspace({ 'h/seven.pdf': 'pdf/pages-7.pdf' });
      const seven = sha256Of(join(ws.inputs, 'h/seven.pdf'));
      // The host's chunk requests wait at the emulator until released; any request arriving once `process` has
      // started is answered at once (a `process` the host let through would finish instead of hanging).
      let holding = true;
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      let heldChunkRequests = 0;
      const requests: EmulatorRequestLog[] = [];
      const emu = (rig.emulator = await startTestEmulator({
        holdDocument: (endpoint, sha256) => {
          if (!holding || endpoint !== 'process' || sha256 !== seven) return undefined;
          heldChunkRequests += 1;
          return released;
        },
        onRequest: (entry) => requests.push(entry),
      }));
      const processedChunks: string[] = [];
      emu.events.on('event', (event: EmulatorEvent) => event.type === 'chunk_processed' && event.jobId !== undefined && processedChunks.push(event.jobId));
      const env = emulatorEnv(emu);
      const stateDir = env.DOCEXTRACT_STATE_DIR as string;
      const host = rig.track(
        startChildCli(['extract', join(ws.inputs, 'h'), '--out', join(ws.dir, 'out'), '--json', '--rate-limit', 'none', ...FAST_FLAGS], env),
      );

      // The host's record: the job's manifest journaled (before any chunk is sent), and a chunk of it at the emulator.
      await waitFor(() => journaledChunks(stateDir, seven) !== undefined, 'the host to journal the job of seven.pdf');
      await waitFor(() => heldChunkRequests > 0, 'a chunk request of the host held at the emulator');
      const chunks = journaledChunks(stateDir, seven)!;
      expect(chunks.length).toBeGreaterThan(1);
      holding = false;

      // In this process: the host it goes through is a process of its own, named by its pid.
      const refused = await runCli(['process', chunks[0]!, '--json'], { env });
      expectNoStackTrace(refused.stderr);
      expect(refused.code, refused.stderr).toBe(ExitCode.WorkFailed);
      expect(refused.stderr).toContain('chunk_in_progress');
      // The host's refusal, naming the chunk and the command finishing its job (not a 409 the service gave a request that went out).
      expect(refused.stderr).toContain(chunks[0]);
      expect(refused.stderr).toContain(`(process ${host.child.pid})`);

      release();
      const finished = await host.done;
      expectNoStackTrace(finished.stderr);
      expect(finished.code, finished.stderr).toBe(0);
      expect(parseNdjson(finished.stdout).map((line) => line.status)).toEqual(['complete']);
      expectCompleteResult(join(ws.dir, 'out', 'seven.pdf.json'), join(ws.inputs, 'h/seven.pdf'), 7);
      // One request a chunk, the host's, each processing its chunk: none from the refused command.
      expect(requests.filter((entry) => entry.endpoint === 'process').map((entry) => entry.code)).toEqual(chunks.map(() => 'chunk_processed'));
      expect(processedChunks.sort()).toEqual([...chunks].sort());
    },
  );
});
