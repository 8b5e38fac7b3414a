import { describe, expect, it } from 'vitest';
import { SlotProbe } from '../../../src/batch/slot-probe.js';

const MIN = 60_000;
const T0 = 1_700_000_000_000;

describe('SlotProbe', () => {
  it('is quiet until the first refusal, which it reports once', () => {
    const probe = new SlotProbe();
    expect(probe.active).toBe(false);
    expect(probe.due(T0)).toBe(false);
    expect(probe.giveUpAt).toBeUndefined();
    expect(probe.refused(T0, 2)).toBe(true);
    expect(probe.active).toBe(true);
    expect(probe.refused(T0 + MIN, 2)).toBe(false);
  });

  it('probes after 1 min, then 2, 4 and 8, and never waits longer than 8', () => {
    const probe = new SlotProbe();
    const waits: number[] = [];
    let now = T0;
    for (let i = 0; i < 6; i++) {
      probe.refused(now, 1);
      waits.push(probe.nextTryAt - now);
      now = probe.nextTryAt;
    }
    expect(waits).toEqual([1, 2, 4, 8, 8, 8].map((m) => m * MIN));
  });

  it('follows its options', () => {
    const probe = new SlotProbe({ firstProbeMs: 1_000, maxProbeMs: 3_000, slotWaitMs: 5_000 });
    probe.refused(T0, 0);
    expect(probe.nextTryAt).toBe(T0 + 1_000);
    probe.refused(T0, 0);
    expect(probe.nextTryAt).toBe(T0 + 2_000);
    probe.refused(T0, 0);
    expect(probe.nextTryAt).toBe(T0 + 3_000);
    expect(probe.giveUpAt).toBe(T0 + 5_000);
  });

  it('lets one probe go when it is due, and no second while it is out', () => {
    const probe = new SlotProbe();
    probe.refused(T0, 1);
    expect(probe.due(T0 + MIN - 1)).toBe(false);
    expect(probe.due(T0 + MIN)).toBe(true);
    probe.started();
    expect(probe.due(T0 + MIN)).toBe(false);
    probe.ended(); // the probe's answer said nothing about slots
    expect(probe.due(T0 + MIN)).toBe(true);
    expect(probe.active).toBe(true);
  });

  it('starts over once a probe is accepted', () => {
    const probe = new SlotProbe();
    probe.refused(T0, 0);
    probe.refused(T0, 0);
    probe.started();
    probe.accepted();
    expect(probe.active).toBe(false);
    expect(probe.due(T0 + 10 * MIN)).toBe(false);
    expect(probe.giveUpAt).toBeUndefined();
    expect(probe.refused(T0 + 10 * MIN, 0)).toBe(true);
    expect(probe.nextTryAt).toBe(T0 + 11 * MIN);
    // A refused probe is no longer out.
    probe.started();
    probe.refused(T0 + 11 * MIN, 0);
    expect(probe.due(T0 + 13 * MIN)).toBe(true);
  });

  it('gives up the waiting documents after 30 min with no slot of ours, counted from the first refusal that left none', () => {
    const probe = new SlotProbe();
    probe.refused(T0, 1); // one slot still ours: no clock running
    expect(probe.giveUpAt).toBeUndefined();
    expect(probe.gaveUp(T0 + 60 * MIN)).toBe(false);
    probe.refused(T0 + MIN, 0);
    probe.refused(T0 + 5 * MIN, 0); // still starved since T0 + 1 min
    expect(probe.giveUpAt).toBe(T0 + 31 * MIN);
    expect(probe.gaveUp(T0 + 31 * MIN - 1)).toBe(false);
    expect(probe.gaveUp(T0 + 31 * MIN)).toBe(true);
    probe.started();
    expect(probe.gaveUp(T0 + 40 * MIN)).toBe(false); // not while a probe may still win a slot
  });

  it('a refusal that leaves a slot ours stops the give-up clock', () => {
    const probe = new SlotProbe();
    probe.refused(T0, 0);
    probe.refused(T0 + MIN, 1);
    expect(probe.giveUpAt).toBeUndefined();
    expect(probe.gaveUp(T0 + 60 * MIN)).toBe(false);
  });

  it('with no slot wait, gives up as soon as none is ours', () => {
    const probe = new SlotProbe({ slotWaitMs: 0 });
    probe.refused(T0, 0);
    expect(probe.gaveUp(T0)).toBe(true);
  });
});
