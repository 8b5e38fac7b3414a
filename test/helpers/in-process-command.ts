/**
 * A command run in this process beside commands run as processes (issue 40:
 * a spawned CLI costs ~0.8 CPU-s to start before it does any work). For the
 * command a test is not about as a process: the rerun after a kill, the
 * command riding along on a child host, a `jobs` reading the state. The host's
 * record lists it under this process's id: two running here at once are
 * listed under one pid, so a test that looks one up by pid does so before
 * the other starts (and keeps the host, or the command killed, a process).
 */
import { afterEach } from 'vitest';
import { runCli, type CliRun } from './run-cli.js';

export interface InProcessCommand {
  /** This process's id: what the host's record (commands.json) lists for the command. */
  readonly pid: number;
  done: Promise<CliRun>;
  /** True until `done` settles. */
  running(): boolean;
  /** What it has written to stderr so far (to wait for a message). */
  stderrSoFar(): string;
  stdoutSoFar(): string;
  /** Stops it as a first Ctrl-C (SIGTERM) would, for a command that runs until stopped (a watch); gives its end. */
  interrupt(): Promise<CliRun>;
}

/**
 * Registers the clean-up (call at the top of a test file) and gives the
 * starter. A command still running after a test (one that failed) is
 * stopped as a first Ctrl-C would, and what it had said is printed.
 */
export function inProcessCommands(): (args: string[], env: NodeJS.ProcessEnv) => InProcessCommand {
  const running: { args: string[]; command: InProcessCommand; stop: AbortController; over: boolean }[] = [];
  afterEach((context) => {
    for (const entry of running.splice(0)) {
      if (context.task.result?.state === 'fail')
        process.stderr.write(
          `--- in-process ${entry.args.join(' ')} (${entry.over ? 'ended' : 'still running'})\nstdout:\n${entry.command.stdoutSoFar()}\nstderr:\n${entry.command.stderrSoFar()}\n`,
        );
      // Not awaited: its requests may be held at the emulator, which the rig closes after this.
      if (!entry.over) entry.stop.abort();
    }
  });
  return (args, env) => {
    let stdout = '';
    let stderr = '';
    const stop = new AbortController();
    const done = runCli(args, {
      env,
      stop: stop.signal,
      onOutput: (stream, chunk) => {
        if (stream === 'stdout') stdout += chunk;
        else stderr += chunk;
      },
    });
    const command: InProcessCommand = {
      pid: process.pid,
      done,
      running: () => !entry.over,
      stderrSoFar: () => stderr,
      stdoutSoFar: () => stdout,
      interrupt: () => {
        stop.abort();
        return done;
      },
    };
    const entry = { args, command, stop, over: false };
    void done.then(
      () => (entry.over = true),
      () => (entry.over = true),
    );
    running.push(entry);
    return command;
  };
}
