import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAST_FLAGS } from '../../helpers/emulator-run.js';
import { PipeStream } from '../../helpers/fake-tty.js';
import { expectNothingRaw, FAKE_LINE_NAME, FAKE_LINE_NAME_SHOWN, OSC_NAME, OSC_NAME_SHOWN, RTL_NAME, RTL_NAME_SHOWN } from '../../helpers/hostile-text.js';
import { startWatchOnFakeClock } from '../../helpers/watch-run.js';
import { corpusBytes, watchSuite, writeFile } from '../../helpers/watch-folder.js';

const watchSetup = watchSuite();

describe('docextract watch: hostile file names', () => {
  it('a line per file dropped in, each name escaped: no escape sequence runs, no newline makes a line of its own', async () => {
    const w = await watchSetup();
    const stdout = new PipeStream();
    const run = startWatchOnFakeClock([w.inbox, '--out', w.out, '--rate-limit', 'none', ...FAST_FLAGS], w.env, w.clock, { stdout });
    await run.watching();
    // Three contents, so that no line is a reuse of another (whether a copy is taken in the same look is timing).
    const dropped = [
      [OSC_NAME, OSC_NAME_SHOWN, 1],
      [FAKE_LINE_NAME, FAKE_LINE_NAME_SHOWN, 2],
      [RTL_NAME, RTL_NAME_SHOWN, 3],
    ] as const;
    for (const [name, , pages] of dropped) writeFile(join(w.inbox, name), corpusBytes(`pdf/pages-${pages}.pdf`));
    const completeLines = (): string[] => stdout.text.split('\n').filter((line) => line.startsWith('complete  '));
    await run.runUntil(() => completeLines().length >= 3, 'three complete lines');
    const done = await run.stop();
    expectNothingRaw(stdout.text, 'watch stdout');
    expectNothingRaw(done.stderr, 'watch stderr');
    const lines = stdout.text.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(3);
    for (const [, shown, pages] of dropped)
      expect(lines).toContain(`complete  ${w.inbox}/${shown} -> ${w.out}/${shown}.json (${pages} page${pages === 1 ? '' : 's'})`);
  });
});
