import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSendLog, MemorySendLog, readSendTimes } from '../../../src/batch/send-log.js';
import { FakeClock } from '../../helpers/fake-clock.js';

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;

describe('FileSendLog', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sendlog-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates its folder on the first append and reads the times back in order', () => {
    const clock = new FakeClock(T0);
    const path = join(dir, 'deep', 'er', 'sends.log');
    const log = new FileSendLog(path, { keepMs: HOUR, clock });
    expect(log.load()).toEqual([]);
    log.append(T0 + 5);
    log.append(T0 + 1);
    expect(readFileSync(path, 'utf8')).toBe(`${T0 + 5}\n${T0 + 1}\n`);
    expect(new FileSendLog(path, { keepMs: HOUR, clock }).load()).toEqual([T0 + 1, T0 + 5]);
  });

  it('drops entries older than keepMs, and garbage lines', () => {
    const clock = new FakeClock(T0);
    const path = join(dir, 'sends.log');
    writeFileSync(path, `${T0 - 2 * HOUR}\n${T0 - HOUR}\nnot-a-time\n\n${T0 - HOUR + 1}\n${T0}\n${T0 + 10 * HOUR}\n`);
    expect(new FileSendLog(path, { keepMs: HOUR, clock }).load()).toEqual([T0 - HOUR + 1, T0]);
  });

  it('rewrites the file compactly and atomically once enough has expired', () => {
    const clock = new FakeClock(T0);
    const path = join(dir, 'sends.log');
    const log = new FileSendLog(path, { keepMs: HOUR, clock });
    for (let i = 0; i < 100; i++) log.append(T0 - 2 * HOUR + i);
    log.append(T0);
    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(102);
    expect(new FileSendLog(path, { keepMs: HOUR, clock }).load()).toEqual([T0]);
    expect(readFileSync(path, 'utf8')).toBe(`${T0}\n`);
    expect(readdirSync(dir)).toEqual(['sends.log']);
  });

  it('leaves a file with a few expired entries alone (no rewrite per start)', () => {
    const clock = new FakeClock(T0);
    const path = join(dir, 'sends.log');
    const text = `${T0 - 2 * HOUR}\n${T0}\n`;
    writeFileSync(path, text);
    expect(new FileSendLog(path, { keepMs: HOUR, clock }).load()).toEqual([T0]);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('never glues a new entry onto a line torn by kill -9', () => {
    const clock = new FakeClock(T0);
    const path = join(dir, 'sends.log');
    writeFileSync(path, `${T0 - 10}\n17000`);
    // Appending without a load first: the torn tail gets its newline.
    new FileSendLog(path, { keepMs: HOUR, clock }).append(T0);
    expect(new FileSendLog(path, { keepMs: HOUR, clock }).load()).toEqual([T0 - 10, T0]);

    writeFileSync(path, `${T0 - 10}\n17000`);
    const log = new FileSendLog(path, { keepMs: HOUR, clock });
    expect(log.load()).toEqual([T0 - 10]);
    log.append(T0);
    expect(readFileSync(path, 'utf8')).toBe(`${T0 - 10}\n${T0}\n`);
  });
});

describe('FileSendLog: a send moved or forgotten is counted once by every reader (issue 52)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sendlog-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("a move replaces the send it names, a drop removes it: the gate's next load and usage read the same times", () => {
    const clock = new FakeClock(T0);
    const path = join(dir, 'sends.log');
    const log = new FileSendLog(path, { keepMs: HOUR, clock });
    log.append(T0);
    log.append(T0);
    log.append(T0 + 10);
    log.move(T0, T0 + 300);
    log.drop(T0 + 10);
    expect(readFileSync(path, 'utf8')).toBe(`${T0}\n${T0}\n${T0 + 10}\n${T0}>${T0 + 300}\n${T0 + 10}>\n`);
    expect(new FileSendLog(path, { keepMs: HOUR, clock }).load()).toEqual([T0, T0 + 300]);
    expect(readSendTimes(path)).toEqual([T0, T0 + 300]);
  });

  it('a move whose send was compacted away as too old still counts its new instant; one naming no send adds nothing else', () => {
    const path = join(dir, 'sends.log');
    writeFileSync(path, `${T0 - 5}>${T0}\n${T0 - 7}>\n`);
    expect(readSendTimes(path)).toEqual([T0]);
  });

  it('compaction folds the moves in: a log of n answered requests is rewritten to n lines', () => {
    const clock = new FakeClock(T0);
    const path = join(dir, 'sends.log');
    const log = new FileSendLog(path, { keepMs: HOUR, clock });
    for (let i = 0; i < 100; i++) {
      log.append(T0 + i);
      log.move(T0 + i, T0 + i + 1_000);
    }
    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(201);
    const times = Array.from({ length: 100 }, (_, i) => T0 + i + 1_000);
    expect(new FileSendLog(path, { keepMs: HOUR, clock }).load()).toEqual(times);
    expect(readFileSync(path, 'utf8')).toBe(times.map((at) => `${at}\n`).join(''));
  });

  it('a run that never loads again (a watch for days) still compacts as it writes: the file stays bounded', () => {
    // Time moves synchronously here, one second per request, 6,000 requests: at most 60 are in the window at once.
    let now = T0;
    const clock = { now: () => now, sleep: () => Promise.resolve() };
    const path = join(dir, 'sends.log');
    const log = new FileSendLog(path, { keepMs: 60_000, clock });
    log.load();
    let longest = 0;
    for (let i = 0; i < 6_000; i++) {
      log.append(now);
      log.move(now, now + 200);
      now += 1_000;
      if (i % 50 === 0) longest = Math.max(longest, readFileSync(path, 'utf8').split('\n').length - 1);
    }
    expect(longest).toBeLessThanOrEqual(4_096 + 60);
    expect(readFileSync(path, 'utf8').split('\n').length - 1).toBeLessThanOrEqual(4_096 + 60);
    expect(readSendTimes(path).filter((at) => at > now - 60_000)).toHaveLength(60);
  });
});

describe('MemorySendLog', () => {
  it('keeps what it is given, sorted', () => {
    const log = new MemorySendLog([3, 1]);
    log.append(2);
    expect(log.load()).toEqual([1, 2, 3]);
    log.move(1, 5);
    log.drop(2);
    log.drop(9);
    expect(log.load()).toEqual([3, 5]);
  });
});
