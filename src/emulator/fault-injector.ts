import { mulberry32 } from './prng.js';
import type { EmulatorEndpoint, FaultConfig, FaultKind } from './types.js';

export const FAULT_KINDS: readonly FaultKind[] = [
  'rate_limit',
  'server_busy',
  'server_error',
  'persist_failed',
  'extraction_failed',
  'chunk_in_progress',
  'chunk_source_lost',
  'reset_before',
  'reset_after',
  'html_502',
  'truncated_json',
  'oversized_body',
  'gzip_bomb',
  'wrong_field',
  'extra_headers',
  'ratelimit_garbage',
  'date_garbage',
  'trickle_stop',
  'slow',
];

/**
 * Faults that let the request do its work and then distort the answer (its
 * body, headers or delivery). Admission lets them through; the exchange
 * applies them when it answers.
 */
export const ANSWER_FAULTS: readonly FaultKind[] = [
  'reset_after',
  'truncated_json',
  'oversized_body',
  'gzip_bomb',
  'wrong_field',
  'extra_headers',
  'ratelimit_garbage',
  'date_garbage',
  'trickle_stop',
];

export const ENDPOINTS: readonly EmulatorEndpoint[] = ['documents', 'process', 'result', 'models', 'health', 'authorised'];

/** The faults chosen for one request. */
export interface FaultDraw {
  /** At most one failure-type fault per request. */
  primary: FaultKind | null;
  /** `slow` is drawn on its own, so it can combine with a failure. */
  slow: boolean;
}

export const NO_FAULT: FaultDraw = { primary: null, slow: false };

/**
 * Decides faults with a seeded PRNG. Per request on an endpoint with faults
 * configured it takes one number for the failure kinds (walked in the fixed
 * FAULT_KINDS order, probabilities accumulated; if they sum past 1 the later
 * kinds get what is left) and one more for `slow` when that is configured.
 * Requests on endpoints without faults take no numbers, so adding faults to
 * one endpoint does not reshuffle another's.
 */
export class FaultInjector {
  private faults: FaultConfig = {};
  private readonly random: () => number;

  constructor(faults: FaultConfig, seed: number) {
    this.random = mulberry32(seed);
    this.setFaults(faults);
  }

  setFaults(faults: FaultConfig): void {
    for (const [endpoint, kinds] of Object.entries(faults)) {
      if (!ENDPOINTS.includes(endpoint as EmulatorEndpoint)) throw new RangeError(`unknown endpoint "${endpoint}" in faults`);
      for (const [kind, probability] of Object.entries(kinds ?? {})) {
        if (!FAULT_KINDS.includes(kind as FaultKind)) throw new RangeError(`unknown fault kind "${kind}"`);
        if (typeof probability !== 'number' || !(probability >= 0 && probability <= 1)) {
          throw new RangeError(`fault ${endpoint}.${kind}: probability must be between 0 and 1`);
        }
      }
    }
    this.faults = structuredClone(faults);
  }

  /**
   * One of `choices`, from the same seeded stream as the draws, so a corrupted
   * answer replays exactly for a given seed and request order.
   */
  pick<T>(choices: readonly T[]): T {
    const choice = choices[Math.floor(this.random() * choices.length)];
    if (choice === undefined) throw new RangeError('pick() needs at least one choice');
    return choice;
  }

  draw(endpoint: EmulatorEndpoint): FaultDraw {
    const kinds = this.faults[endpoint];
    if (kinds === undefined) return NO_FAULT;
    let primary: FaultKind | null = null;
    const failureKinds = FAULT_KINDS.filter((kind) => kind !== 'slow' && (kinds[kind] ?? 0) > 0);
    if (failureKinds.length > 0) {
      const roll = this.random();
      let cumulative = 0;
      for (const kind of failureKinds) {
        cumulative += kinds[kind] ?? 0;
        if (roll < cumulative) {
          primary = kind;
          break;
        }
      }
    }
    const slow = (kinds.slow ?? 0) > 0 && this.random() < (kinds.slow ?? 0);
    return { primary, slow };
  }
}
