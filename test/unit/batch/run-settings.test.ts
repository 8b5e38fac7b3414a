/**
 * The engine's rules for a run's settings live with the engine: every front
 * door (CLI flags, config, the library's options, MCP) gets the same refusal,
 * with the code `invalid_setting`, before anything is opened or sent (issue 27).
 */
import { describe, expect, it } from 'vitest';
import { InvalidSettingError, RUN_DEFAULTS, runSettings } from '../../../src/library/settings.js';

describe('runSettings', () => {
  it('takes the defaults, with the margin following the TTL', () => {
    const settings = runSettings({ ttlMs: 600_000 });
    expect(settings).toMatchObject({ ...RUN_DEFAULTS, ttlMs: 600_000, marginMs: 60_000 });
    expect(runSettings({ maxCredits: undefined }).maxCredits).toBeUndefined();
  });

  it.each([
    [{ openJobCap: 6 }, 'openJobCap', 'at most 5 open multi-page jobs'],
    [{ openJobCap: 0 }, 'openJobCap', 'at least 1'],
    [{ openJobCap: 2.5 }, 'openJobCap', 'whole number'],
    [{ concurrency: 0 }, 'concurrency', 'at least 1'],
    [{ ttlMs: 0 }, 'ttlMs', 'a TTL of nothing'],
    [{ ttlMs: 2 * 3_600_000 + 1 }, 'ttlMs', 'at most 2h'],
    [{ ttlMs: 60_000, marginMs: 60_000 }, 'marginMs', 'less than the TTL'],
    [{ maxCredits: 0 }, 'maxCredits', 'at least 1'],
    [{ retryBaseMs: -1 }, 'retryBaseMs', '0 ms or more'],
    [{ slotWaitMs: Number.NaN }, 'slotWaitMs', '0 ms or more'],
    [{ maxAttempts: 0 }, 'maxAttempts', 'at least 1'],
    [{ finalize: 'yes' as unknown as boolean }, 'finalize', 'true or false'],
  ])('refuses %j, naming %s', (overrides, setting, reason) => {
    let thrown: unknown;
    try {
      runSettings(overrides);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidSettingError);
    expect(thrown).toMatchObject({ code: 'invalid_setting', setting, reason: expect.stringContaining(reason) });
  });

  it('takes the edges the service allows', () => {
    expect(runSettings({ openJobCap: 5, ttlMs: 2 * 3_600_000, concurrency: 1, slotWaitMs: 0 })).toMatchObject({ openJobCap: 5, ttlMs: 7_200_000 });
    expect(runSettings({ ttlMs: 1000 }).marginMs).toBe(100);
  });
});
