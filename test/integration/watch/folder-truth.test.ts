/**
 * The whole command, on the real file system: subfolders made and filled
 * at once (written before their watch is in place) are all extracted, each content
 * uploaded once, to the same result paths `extract` of the folder gives.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { FAST_FLAGS } from '../../helpers/emulator-run.js';
import { runCli } from '../../helpers/run-cli.js';
import { distinctJpeg, watchSuite } from '../../helpers/watch-folder.js';

const watchSetup = watchSuite();

function resultPaths(out: string): string[] {
  const found: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(folder, entry.name));
      else if (entry.name.endsWith('.json')) found.push(relative(out, join(folder, entry.name)));
    }
  };
  walk(out);
  return found.sort();
}

describe('docextract watch: the folder is the truth', () => {
  it('30 subfolders of 8 files, filled the moment they exist: each extracted once, at the paths extract gives', async () => {
    const w = await watchSetup();
    const run = w.watch(['--rescan', '5s'], { realTimeoutMs: 230_000 });
    await run.watching();
    const names: string[] = [];
    for (let f = 0; f < 30; f++) {
      mkdirSync(join(w.inbox, `scanner-${f}`, 'pages'), { recursive: true });
      for (let i = 0; i < 8; i++) {
        const name = join(`scanner-${f}`, i % 2 ? 'pages' : '', `p-${i}.jpg`);
        writeFileSync(join(w.inbox, name), distinctJpeg(name));
        names.push(name);
        await nextTurn();
      }
    }
    await run.runUntil(() => run.lines().length === names.length, `${names.length} lines`);
    const done = await run.stop();
    expect(done.code).toBe(130);
    expect(Object.values(w.emu.counters.uploadsBySha256).filter((count) => count !== 1)).toEqual([]);
    expect(Object.keys(w.emu.counters.uploadsBySha256)).toHaveLength(names.length);

    const extracted = join(w.dir, 'extract-out');
    const extract = await runCli(['extract', w.inbox, '--out', extracted, '--json', '--rate-limit', 'none', ...FAST_FLAGS], { env: w.env });
    expect(extract.code).toBe(0);
    expect(resultPaths(w.out)).toEqual(resultPaths(extracted));
    expect(resultPaths(w.out)).toHaveLength(names.length);
    // The bounds are only how long a failing run is given: every wait here is on the run's own output,
    // and 240 files beside 3 busy loops (load 10) outgrew 60 s and then 120 s.
  }, 240_000);
});
