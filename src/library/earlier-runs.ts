/**
 * What earlier runs left in the state folder that a run would take up,
 * looked at without changing anything (`--dry-run`): the results index, the
 * journal's open jobs, and an interrupted `--force` run of the same command.
 */
import { accountId } from '../config/account-id.js';
import type { RunPreviewOptions } from '../engine/run-preview.js';

/** Options of {@link peekEarlierRuns}. */
export interface EarlierRunsOptions {
  /** The state folder the run would use. */
  stateDir: string;
  /** The service's root URL (without `/v3.1`); with the key, the account whose records are read. */
  baseUrl: string;
  /** The service key (only its account is derived from it; nothing is sent). */
  apiKey: string;
  /** The run is forced: what identifies its command (as `forceCommand` of `extractFilesRun`), to find its interrupted forced run. @default not forced */
  forceCommand?: string;
  /** The instant the run would start at: a forced run older than a week is not resumed. */
  now: number;
}

/** What earlier runs left, as {@link previewRun} takes it; each part absent when there is none or it cannot be read. */
export type EarlierRuns = Pick<RunPreviewOptions, 'earlier' | 'journal' | 'forcedSince'>;

/**
 * Looks up, read-only, the results of earlier runs of this key (by question),
 * its open jobs in the journal, and when the interrupted forced run the same
 * command would resume started: a dry run then shows what the run would reuse,
 * resume and pay for. A record that cannot be read is left out, not an error.
 */
export async function peekEarlierRuns(options: EarlierRunsOptions): Promise<EarlierRuns> {
  const { stateDir, forceCommand, now } = options;
  const account = accountId(options.baseUrl, options.apiKey);
  // Loaded for a dry run only: a run opens these stores through its session.
  const [{ KnownResults }, { journalStateOf }, { resumableForceRun }] = await Promise.all([
    import('../engine/known-results.js'),
    import('../engine/cost-preview.js'),
    import('../engine/force-run.js'),
  ]);
  const [earlier, journal] = await Promise.all([
    KnownResults.peek(stateDir, account).catch(() => undefined),
    journalStateOf(stateDir, account).catch(() => undefined),
  ]);
  const forcedSince = forceCommand !== undefined && journal ? resumableForceRun(journal, account, forceCommand, now) : undefined;
  return { ...(earlier ? { earlier } : {}), ...(journal ? { journal } : {}), ...(forcedSince === undefined ? {} : { forcedSince }) };
}
