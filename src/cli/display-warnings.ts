import type { BatchEvents, ChunkFailure } from '../index.js';
import { chunkFailedLine, reachabilityLine } from './batch-notices.js';
import type { CliContext } from './context.js';
import { cliStopMessage, strayJobNotice } from './outcome-words.js';

/**
 * What both displays (`extract`'s bars, `watch`'s status line) say as
 * warnings on stderr, in the CLI's words: one home for them.
 */
export abstract class DisplayWarnings implements Pick<BatchEvents, 'notice' | 'intakeStopped' | 'strayJob' | 'chunkFailed' | 'reachability'> {
  protected constructor(protected readonly ctx: CliContext) {}

  notice(message: string): void {
    this.ctx.ui.warn(message);
  }

  intakeStopped(reason: Parameters<typeof cliStopMessage>[0]): void {
    this.notice(`no longer taking new files: ${cliStopMessage(reason)}`);
  }

  strayJob(job: { parentJobId: string; path: string }): void {
    this.notice(strayJobNotice(job, this.ctx.suggestedFlags()));
  }

  chunkFailed(failure: ChunkFailure): void {
    this.notice(chunkFailedLine(failure, this.ctx.clock.now()));
  }

  reachability(change: Parameters<NonNullable<BatchEvents['reachability']>>[0]): void {
    this.notice(reachabilityLine(change));
  }
}
