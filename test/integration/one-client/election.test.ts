/**
 * An election after the host crashes (issue 27, item 6): two extracts and a
 * watch ride along on a host that is killed with kill -9. One of the three
 * wins the state folder and hosts, the others ride along on it (the new
 * host's own record says so), the extracts finish every file, and the watch
 * survives the crash: it goes on taking what arrives. Every step waits on a
 * positive signal: the host's record (commands.json), the emulator's log.
 */
import { copyFileSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EmulatorEvent } from '../../../src/emulator/index.js';
import { startChildCli } from '../../helpers/child-run.js';
import { emulatorEnv, expectNoStackTrace, FAST_FLAGS, readJournal, startTestEmulator } from '../../helpers/emulator-run.js';
import { holdAnswersUntilReleased } from '../../helpers/held-answers.js';
import { commandRig, completeAt, runningCommands, waitFor } from '../../helpers/one-client.js';
import { CORPUS, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';

const rig = commandRig();

describe('many commands, one client: an election after the host crashes', () => {
  it(
    'kill -9 of the host under two extracts and a watch riding along: one of them hosts, the others ride along on it; the extracts finish every file and exit 0; the watch survives and takes a file dropped after the crash',
    { timeout: 120_000 },
    async () => {
      // Every answer waits until all three ride along: on a busy machine the riders start slowly, and one
      // with its few files done would have left before the last joined.
      const held = holdAnswersUntilReleased();
      // From the kill on, every answer waits again until the test has seen the election's outcome in the new
      // host's record: no rider can finish and leave before it is listed.
      const afterKill = holdAnswersUntilReleased({ held: false });
      const emu = (rig.emulator = await startTestEmulator({
        // What orders this test is the holds and the emulator's events, not the pace; the emulator's window is the looser.
        rateLimits: [{ limit: 20, windowMs: 1000 }],
        latencyMs: { process: 100 },
        holdAnswer: (endpoint) => held.holdAnswer(endpoint) ?? afterKill.holdAnswer(endpoint),
      }));
      const ws = makeWorkspace({
        'h/thirty.pdf': 'pdf/pages-30.pdf',
        'h/twelve.pdf': 'pdf/pages-12.pdf',
        'a/seven.pdf': 'pdf/pages-7.pdf',
        'a/x.png': 'images/id-card.png',
        'b/four.pdf': 'pdf/pages-4.pdf',
        'b/y.jpg': 'images/receipt.jpg',
        'inbox/w.png': 'images/logo-with-alpha.png',
      });
      // Split jobs journaled (a chunk of each processed) before the kill, a rider's among them: it must be resumed,
      // not uploaded again. The hold starts at the emulator's event, not when the test next looks.
      const splits = ['h/thirty.pdf', 'h/twelve.pdf', 'a/seven.pdf'].map((name) => sha256Of(join(ws.inputs, name)));
      const processed = new Set<string>();
      emu.events.on('event', (event: EmulatorEvent) => {
        if (event.type !== 'chunk_processed' || !event.sha256) return;
        processed.add(event.sha256);
        if (splits.every((sha) => processed.has(sha))) afterKill.hold();
      });
      const env = emulatorEnv(emu);
      const stateDir = env.DOCEXTRACT_STATE_DIR as string;
      const rate = ['--json', '--rate-limit', '16/1s', ...FAST_FLAGS];
      const extract = (folder: string): string[] => ['extract', join(ws.inputs, folder), '--out', join(ws.dir, `out-${folder}`), ...rate];

      const host = rig.track(startChildCli(extract('h'), env));
      await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'host' && command.pid === host.child.pid), 'the first extract to host');
      const a = rig.track(startChildCli(extract('a'), env));
      const b = rig.track(startChildCli(extract('b'), env));
      const watch = rig.track(startChildCli(['watch', join(ws.inputs, 'inbox'), '--out', join(ws.dir, 'out-inbox'), '--settle', '100ms', ...rate], env));
      const riders = [a, b, watch].map((run) => run.child.pid as number);
      await waitFor(
        () => riders.every((pid) => runningCommands(stateDir).some((command) => command.role === 'client' && command.pid === pid)),
        'all three riding along',
      );
      held.release();
      await waitFor(() => splits.every((sha) => processed.has(sha)), 'a chunk of each split job, seven.pdf of the first rider included');
      host.child.kill('SIGKILL');
      await host.done;
      // The jobs the journal holds at the kill: resumable by whoever hosts next, never uploaded again.
      const journaledJobs = new Set(
        readJournal(stateDir)
          .filter((record) => record.type === 'manifest')
          .map((record) => record.sha256),
      );

      // The election: one of the three hosts now (its own record), and every other one still running rides
      // along on it (a rider whose files were all done before the kill may have left), the watch among them.
      const running = (run: (typeof rig.children)[number]): boolean => run.child.exitCode === null && run.child.signalCode === null;
      const newHost = (): number | undefined => runningCommands(stateDir).find((command) => command.role === 'host' && riders.includes(command.pid))?.pid;
      const ridingOnIt = (): number[] =>
        runningCommands(stateDir)
          .filter((command) => command.role === 'client')
          .map((command) => command.pid);
      await waitFor(
        () => {
          const hostPid = newHost();
          return (
            hostPid !== undefined &&
            [a, b, watch].filter((run) => run.child.pid !== hostPid && running(run)).every((run) => ridingOnIt().includes(run.child.pid as number))
          );
        },
        'one of the three to host, the others riding along on it',
        undefined,
        () => ({
          commands: runningCommands(stateDir),
          commands_file: existsSync(join(stateDir, 'commands.json')),
          riders: [a, b, watch].map((run) => ({ pid: run.child.pid, exit: run.child.exitCode, signal: run.child.signalCode, stderr: run.stderrSoFar() })),
        }),
      );
      expect(ridingOnIt().length, 'riders on the new host').toBeGreaterThanOrEqual(1);
      expect([newHost(), ...ridingOnIt()]).toContain(watch.child.pid);
      afterKill.release();

      for (const [run, files] of [
        [a, ['seven.pdf', 'x.png']],
        [b, ['four.pdf', 'y.jpg']],
      ] as const) {
        const done = await run.done;
        expectNoStackTrace(done.stderr);
        expect(done.code, done.stderr).toBe(0);
        expect(
          parseNdjson(done.stdout)
            .map((line) => [basename(String(line.file)), line.status])
            .sort(),
        ).toEqual(files.map((file) => [file, 'complete']).sort());
      }

      // The watch survived the crash: what it had, and what arrives now.
      await waitFor(() => completeAt(join(ws.dir, 'out-inbox', 'w.png.json')), 'the watched file');
      copyFileSync(join(CORPUS, 'pdf/pages-2.pdf'), join(ws.inputs, 'inbox', 'late.pdf'));
      await waitFor(() => completeAt(join(ws.dir, 'out-inbox', 'late.pdf.json')), 'the file dropped after the crash');
      watch.child.kill('SIGINT');
      const watched = await watch.done;
      expectNoStackTrace(watched.stderr);
      expect(watched.code, watched.stderr).toBe(130);
      expect(
        parseNdjson(watched.stdout)
          .map((line) => [basename(String(line.file)), line.status])
          .sort(),
      ).toEqual([
        ['late.pdf', 'complete'],
        ['w.png', 'complete'],
      ]);

      // Paid once: a job the journal held at the kill is resumed, never uploaded again; only an answer the
      // kill cut off (answered by the service, not yet journaled by the host) is asked for again.
      const survivors = ['a/seven.pdf', 'a/x.png', 'b/four.pdf', 'b/y.jpg', 'inbox/w.png'].map((name) => [name, sha256Of(join(ws.inputs, name))] as const);
      expect(journaledJobs.has(sha256Of(join(ws.inputs, 'a/seven.pdf')))).toBe(true);
      for (const [name, sha] of survivors) {
        if (journaledJobs.has(sha)) expect(emu.counters.uploadsBySha256[sha], name).toBe(1);
        else expect(emu.counters.uploadsBySha256[sha], name).toBeLessThanOrEqual(2);
      }
    },
  );
});
