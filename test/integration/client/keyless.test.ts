/**
 * A client given no key (issue 53): work that sends nothing runs as the CLI's does without a key
 * (every input refused before sending), and a run that must send stops with `missing_api_key`,
 * the code the CLI exits 2 on, before any request. Before, the constructor refused an absent key.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DocExtract } from '../../../src/index.js';
import { makeWorkspace } from '../../helpers/workspace.js';

/** A fetch that counts what would have been sent and answers nothing. */
function countingFetch(): { fetch: typeof globalThis.fetch; calls: () => number } {
  let calls = 0;
  const fetch = (() => {
    calls += 1;
    return Promise.reject(new Error('nothing may be sent without a key'));
  }) as typeof globalThis.fetch;
  return { fetch, calls: () => calls };
}

function keylessClient(cwd: string, fetch: typeof globalThis.fetch): DocExtract {
  return new DocExtract({ stateDir: mkdtempSync(join(tmpdir(), 'dx-keyless-state-')), cwd, rateLimit: 'none', fetch });
}

describe('a client given no key', () => {
  it('runs an extraction whose every input is refused before sending, and sends nothing', async () => {
    const ws = makeWorkspace({ 'one.pdf': 'pdf/pages-1.pdf' });
    const sent = countingFetch();
    const run = keylessClient(ws.dir, sent.fetch).extract([join(ws.dir, 'no-such.pdf')], { out: ws.out, tuneHeap: false });
    const report = await run.done;
    expect(report.counts.complete).toBe(0);
    expect(report.outcomes.map((outcome) => outcome.status)).toEqual(['failed']);
    expect(sent.calls()).toBe(0);
  });

  it('stops a run that must send with missing_api_key, before any request', async () => {
    const ws = makeWorkspace({ 'one.pdf': 'pdf/pages-1.pdf' });
    const sent = countingFetch();
    const dx = keylessClient(ws.dir, sent.fetch);
    await expect(dx.extract([ws.inputs], { out: ws.out, tuneHeap: false }).done).rejects.toMatchObject({ code: 'missing_api_key', option: 'apiKey' });
    expect(() => dx.account).toThrow(expect.objectContaining({ code: 'missing_api_key' }));
    await expect(dx.models()).rejects.toMatchObject({ code: 'missing_api_key' });
    expect(sent.calls()).toBe(0);
  });

  it("reads every account's jobs and usage when asked (allAccounts), and refuses its own account's with missing_api_key", async () => {
    const ws = makeWorkspace({ 'one.pdf': 'pdf/pages-1.pdf' });
    const sent = countingFetch();
    const dx = keylessClient(ws.dir, sent.fetch);
    const listing = await dx.jobs({ allAccounts: true });
    expect(listing).toEqual({ jobs: [], unanswered: [], failedFiles: [], lastRuns: [], running: [], server: new Map() });
    expect((await dx.usage({ allAccounts: true })).windows).toEqual([]);
    await expect(dx.jobs()).rejects.toMatchObject({ code: 'missing_api_key' });
    await expect(dx.usage()).rejects.toMatchObject({ code: 'missing_api_key' });
    await expect(dx.jobs({ allAccounts: true, refresh: true })).resolves.toMatchObject({ server: new Map() });
    expect(sent.calls()).toBe(0);
  });

  it('still refuses a malformed key in the constructor', () => {
    expect(() => new DocExtract({ apiKey: 'sk_short' })).toThrow(expect.objectContaining({ code: 'invalid_api_key' }));
  });
});
