/**
 * What the service did with each upload it received, by content: took it in
 * (extracted it, or split it into a job: the only uploads that cost credits
 * or hold a job slot), or refused it with a 429 before any work. A refused
 * upload is sent again once its window resets and costs nothing, so "each
 * content uploaded once" means taken in once, with every other upload of it
 * that the service received answered 429 (`counters.uploadsBySha256` counts
 * every upload received, refused ones included: under load a 429 on an
 * upload made it 2 for a content paid for once, issue 28).
 *
 * Strict on purpose: an upload the service worked on whose answer was lost
 * (a reset after the work, a deadline) is neither taken in by an answer nor
 * refused, and fails the check.
 */
import { expect } from 'vitest';
import type { EmulatorRequestLog, RunningEmulator } from '../../src/emulator/index.js';

export interface UploadTally {
  /** For the emulator's options (`onRequest`): every answer is looked at. */
  onRequest(entry: EmulatorRequestLog): void;
  /** Uploads of this content the service answered 200 or 202 (taken in). */
  taken(sha256: string): number;
  /** Uploads of this content the service refused with 429 rate_limit_exceeded. */
  rateLimited(sha256: string): number;
}

export function uploadTally(): UploadTally {
  const taken = new Map<string, number>();
  const refused = new Map<string, number>();
  const add = (counts: Map<string, number>, sha256: string): void => void counts.set(sha256, (counts.get(sha256) ?? 0) + 1);
  return {
    onRequest(entry) {
      if (entry.endpoint !== 'documents' || entry.sha256 === undefined) return;
      if (entry.status === 200 || entry.status === 202) add(taken, entry.sha256);
      else if (entry.status === 429 && entry.code === 'rate_limit_exceeded') add(refused, entry.sha256);
    },
    taken: (sha256) => taken.get(sha256) ?? 0,
    rateLimited: (sha256) => refused.get(sha256) ?? 0,
  };
}

/** Each content (label -> sha256) was taken in exactly once, and every other upload of it the service received was refused with a 429. */
export function expectEachTakenOnce(emu: RunningEmulator, tally: UploadTally, contents: Record<string, string>): void {
  expect(Object.keys(contents).length, 'contents to check').toBeGreaterThan(0);
  for (const [label, sha256] of Object.entries(contents)) {
    expect(tally.taken(sha256), `${label}: uploads the service took in`).toBe(1);
    expect(emu.counters.uploadsBySha256[sha256], `${label}: uploads received = 1 taken in + ${tally.rateLimited(sha256)} refused with 429`).toBe(
      1 + tally.rateLimited(sha256),
    );
  }
}
