/**
 * `extract` piped into a reader that stops reading (`| jq` behind a full
 * pipe, a parent that reads late): the run takes no more files while its
 * lines wait, so what Node queues for the pipe stays a slice's worth, not
 * ~200 bytes for every file of a million.
 */
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { PLAN_SLICE } from '../../src/features/running-window.js';
import { emulatorEnv, startTestEmulator, UNTHROTTLED_FLAGS } from '../helpers/emulator-run.js';

/**
 * A pipe whose reader takes nothing until the test lets it: it says it is
 * full while lines are unread, as Node's stream does past its high-water
 * mark. Each wait for `drain` is recorded with the lines written before it.
 */
class StalledPipe extends EventEmitter {
  readonly isTTY = false;
  readonly lines: string[] = [];
  readonly waits: number[] = [];
  private unread = 0;

  constructor(private readonly onWait: (pipe: StalledPipe) => void) {
    super();
    this.on('newListener', (event: string) => {
      if (event === 'drain') {
        this.waits.push(this.lines.length);
        onWait(this);
      }
    });
  }

  get writableNeedDrain(): boolean {
    return this.unread > 0;
  }

  write(chunk: string): boolean {
    this.lines.push(...chunk.split('\n').filter(Boolean));
    this.unread += 1;
    return false;
  }

  /** The reader takes everything written so far. */
  read(): void {
    this.unread = 0;
    this.emit('drain');
  }
}

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu.close();
});

describe('extract and a reader that stops reading', () => {
  it('takes its next slice of files only once the reader has taken the lines before it', async () => {
    // Files that are refused before sending each give a line and cost no request: 2 whole slices and part of a third.
    const count = 2 * PLAN_SLICE + 200;
    const dir = mkdtempSync(join(tmpdir(), 'docextract-slow-reader-'));
    mkdirSync(join(dir, 'in'));
    for (let i = 0; i < count; i++) writeFileSync(join(dir, 'in', `empty-${String(i).padStart(4, '0')}.pdf`), '');
    // The positive signal: the run asks to be told when the reader has taken its lines. The reader then takes them.
    const stdout = new StalledPipe((pipe) => setImmediate(() => pipe.read()));
    let stderr = '';
    const io: CliIO = {
      stdout,
      stderr: { write: (chunk: string) => (stderr += chunk), isTTY: false },
      stdin: Readable.from([]) as CliIO['stdin'],
      env: emulatorEnv(emu),
      cwd: dir,
    };
    const code = await main(['node', 'docextract', 'extract', 'in', '--json', ...UNTHROTTLED_FLAGS], { io });
    expect(stderr).toContain(`${count} failed`);
    expect(code).toBe(1);
    expect(stdout.lines).toHaveLength(count);
    expect(new Set(stdout.lines.map((line) => (JSON.parse(line) as { error: { code: string } }).error.code))).toEqual(new Set(['invalid_file']));
    // It waited after each whole slice, before planning the next: never more than a slice of lines unread.
    expect(stdout.waits).toEqual([PLAN_SLICE, 2 * PLAN_SLICE]);
  });
});
