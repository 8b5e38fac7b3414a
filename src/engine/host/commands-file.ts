import { rm } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import type { DocumentTask } from '../../batch/document-task.js';
import { writeFileAtomically } from '../../store/atomic-write.js';
import { PRIVATE_FILE_MODE, readPrivateFile } from '../../store/private-files.js';

/** A command submitting to the host. */
export interface Origin {
  id: string;
  pid: number;
  command: string;
  since: number;
  socket: Socket;
  /** Its document ids without an outcome yet, and those under way. */
  waiting: Set<number>;
  started: Set<number>;
}

/** One running command as `docextract jobs` shows it. */
export interface RunningCommand {
  /** Its process id (on the host's machine). */
  pid: number;
  /** Who it is, as the caller named itself (EngineRun.command); the CLI gives its command line, keys redacted, e.g. `docextract extract invoices/`. */
  command: string;
  /** ISO time it joined. */
  since: string;
  /** `host`: it schedules for every command; `client`: it submits to the host. */
  role: 'host' | 'client';
  /** Its documents not finished yet, and of those the ones under way (uploading, or with an open job). */
  queued: number;
  /** Of `queued`, the documents under way. */
  inProgress: number;
  /** Job slots its documents hold (open jobs). */
  jobSlots: number;
}

export function commandsFilePath(stateDir: string): string {
  return join(stateDir, 'commands.json');
}

/**
 * `<stateDir>/commands.json`, written by the host whenever what a command
 * holds changes (atomically, one write at a time, the last state wins), and
 * removed when it stops hosting.
 */
export class CommandsFile {
  private writing: Promise<void> = Promise.resolve();
  private pending = false;

  constructor(
    private readonly path: string,
    private readonly snapshot: () => RunningCommand[],
  ) {}

  changed(): void {
    if (this.pending) return;
    this.pending = true;
    this.writing = this.writing
      .then(() => {
        this.pending = false;
        return writeFileAtomically(this.path, `${JSON.stringify({ commands: this.snapshot() }, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
      })
      .catch(() => undefined); // a view for `jobs`: the next change writes it again
  }

  async remove(): Promise<void> {
    await this.writing;
    await rm(this.path, { force: true }).catch(() => undefined);
  }
}

/** The commands a host last wrote, or none (no host, or an unreadable file). */
export async function readRunningCommands(stateDir: string): Promise<RunningCommand[]> {
  try {
    const parsed = JSON.parse(await readPrivateFile(commandsFilePath(stateDir))) as { commands?: RunningCommand[] };
    return Array.isArray(parsed.commands) ? parsed.commands : [];
  } catch {
    return [];
  }
}

/** What each command holds now: the host's own documents among `live` (no origin), and each origin's. */
export function runningCommands(
  live: Iterable<DocumentTask>,
  host: { pid: number; command: string; since: number },
  origins: readonly Origin[],
): RunningCommand[] {
  const slots = new Map<string, number>();
  const own = { queued: 0, inProgress: 0 };
  for (const task of live) {
    if (task.phase === 'done') continue;
    const key = task.doc.origin ?? '';
    if (task.job && task.job.phase !== 'closed') slots.set(key, (slots.get(key) ?? 0) + 1);
    if (key !== '') continue;
    own.queued += 1 + task.copies.length;
    if (task.phase !== 'queued') own.inProgress += 1;
  }
  return [
    { pid: host.pid, command: host.command, since: new Date(host.since).toISOString(), role: 'host', ...own, jobSlots: slots.get('') ?? 0 },
    ...origins.map((origin): RunningCommand => ({
      pid: origin.pid,
      command: origin.command,
      since: new Date(origin.since).toISOString(),
      role: 'client',
      queued: origin.waiting.size,
      inProgress: origin.started.size,
      jobSlots: slots.get(origin.id) ?? 0,
    })),
  ];
}
