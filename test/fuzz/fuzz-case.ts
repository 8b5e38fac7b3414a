/**
 * One fuzz case: a small batch, a random mix of faults per endpoint (the
 * lying kinds and the transient ones), the emulator's fault seed, and how
 * the server shows its clock and its Reset header. A case is plain JSON, so
 * one that once failed is kept as it is in regressions.json and replayed.
 */
import fc from 'fast-check';
import type { EmulatorEndpoint, FaultConfig, FaultKind, ResetStyle } from '../../src/emulator/index.js';

/** Corpus files a case draws from: sync (images, 1-3 pages) and split (4-12 pages), all distinct bytes. */
export const FILE_POOL = {
  'receipt.jpg': { source: 'images/receipt.jpg', pages: 1 },
  'id-card.png': { source: 'images/id-card.png', pages: 1 },
  'one.pdf': { source: 'pdf/pages-1.pdf', pages: 1 },
  'two.pdf': { source: 'pdf/pages-2.pdf', pages: 2 },
  'three.pdf': { source: 'pdf/pages-3.pdf', pages: 3 },
  'four.pdf': { source: 'pdf/pages-4.pdf', pages: 4 },
  'five.pdf': { source: 'pdf/classic-xref-5.pdf', pages: 5 },
  'seven.pdf': { source: 'pdf/pages-7.pdf', pages: 7 },
  'twelve.pdf': { source: 'pdf/pages-12.pdf', pages: 12 },
} as const;

export type PoolFile = keyof typeof FILE_POOL;

export interface FuzzCase {
  /** The emulator's fault PRNG seed. */
  seed: number;
  files: PoolFile[];
  /** Percent per kind, per endpoint. */
  faults: FaultConfig;
  resetStyle: ResetStyle;
  clockSkewMs: number;
  concurrency: number;
}

/** The server did the work, then the answer lies about it (body or headers). */
const LYING: FaultKind[] = ['oversized_body', 'gzip_bomb', 'wrong_field', 'extra_headers', 'ratelimit_garbage', 'date_garbage', 'trickle_stop'];
/** Transient faults any endpoint may show. */
const TRANSIENT: FaultKind[] = ['rate_limit', 'server_busy', 'server_error', 'reset_before', 'html_502', 'slow'];

/**
 * What each endpoint the CLI calls may suffer. `chunk_source_lost` is left
 * out: it makes the client upload the file again and pay its pages twice by
 * design, which the paid-once invariant would have to excuse.
 */
export const KINDS_BY_ENDPOINT: Partial<Record<EmulatorEndpoint, FaultKind[]>> = {
  models: [...TRANSIENT, ...LYING],
  health: [...TRANSIENT, ...LYING],
  documents: [...TRANSIENT, ...LYING, 'reset_after', 'truncated_json', 'extraction_failed', 'persist_failed'],
  process: [...TRANSIENT, ...LYING, 'reset_after', 'truncated_json', 'extraction_failed', 'persist_failed', 'chunk_in_progress'],
  result: [...TRANSIENT, ...LYING, 'reset_after', 'truncated_json', 'persist_failed'],
};

/**
 * At most this share of an endpoint's answers fail (slow aside): with 8
 * attempts a request is then given up once in ~10^4, so most runs complete,
 * yet every run meets many faults.
 */
const MAX_FAILURE_SHARE = 0.4;

function scaled(percents: Partial<Record<FaultKind, number>>): Partial<Record<FaultKind, number>> {
  const failing = Object.entries(percents).filter(([kind]) => kind !== 'slow');
  const total = failing.reduce((sum, [, percent]) => sum + (percent ?? 0), 0) / 100;
  const factor = total > MAX_FAILURE_SHARE ? MAX_FAILURE_SHARE / total : 1;
  return Object.fromEntries(
    Object.entries(percents).map(([kind, percent]) => [kind, kind === 'slow' ? (percent ?? 0) / 100 : ((percent ?? 0) / 100) * factor]),
  );
}

/** A few kinds per endpoint, 1-25 % each, scaled down together past MAX_FAILURE_SHARE. */
function endpointMix(kinds: FaultKind[]): fc.Arbitrary<Partial<Record<FaultKind, number>>> {
  return fc
    .subarray(kinds, { minLength: 0, maxLength: 5 })
    .chain((chosen) =>
      fc.tuple(...chosen.map(() => fc.integer({ min: 1, max: 25 }))).map((percents) => Object.fromEntries(chosen.map((kind, i) => [kind, percents[i] ?? 1]))),
    )
    .map(scaled);
}

export const fuzzCaseArbitrary: fc.Arbitrary<FuzzCase> = fc.record({
  seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  files: fc.subarray(Object.keys(FILE_POOL) as PoolFile[], { minLength: 1, maxLength: 4 }),
  faults: fc.record(
    Object.fromEntries(Object.entries(KINDS_BY_ENDPOINT).map(([endpoint, kinds]) => [endpoint, endpointMix(kinds)])),
  ) as fc.Arbitrary<FaultConfig>,
  resetStyle: fc.constantFrom<ResetStyle>('epoch', 'epoch-ms', 'delta-seconds'),
  clockSkewMs: fc.constantFrom(0, 4_000, -4_000, 3_600_000),
  concurrency: fc.integer({ min: 1, max: 6 }),
});

/** Requests a file needs when nothing goes wrong: 1 upload, or 1 + a process per 3 pages + collect + finalize. */
export function requestsNeeded(pages: number): number {
  return pages <= 3 ? 1 : 1 + Math.ceil(pages / 3) + 2;
}
