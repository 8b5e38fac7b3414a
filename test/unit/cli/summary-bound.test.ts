import { describe, expect, it } from 'vitest';
import { FinishedTally } from '../../../src/cli/outcome-lines.js';

describe('the closing summary sets the time taken against the bound for the requests sent (issue 52)', () => {
  it('says the bound when it is more than nothing, and nothing of a bound of 0 (a collect whose requests all fit at once)', () => {
    const tally = new FinishedTally();
    tally.add({ file: 'a.pdf', status: 'complete', pages: 1 } as never);
    expect(tally.summary({ requests: 12, credits: 1, boundMs: 60_000 }, 61_000)).toMatch(/ · 1m 01s \(the rate limits allowed no less than 1m 00s\)$/);
    expect(tally.summary({ requests: 3, credits: 1, boundMs: 0 }, 2_000)).toMatch(/ · 2s$/);
    expect(tally.summary({ requests: 0, credits: 0 }, 2_000)).toMatch(/ · 2s$/);
  });
});
