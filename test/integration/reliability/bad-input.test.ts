/**
 * Bad-input suite: every 400 and 413 cause of spec §7 that a user can reach
 * from the command line, unreadable, truncated and empty files, folders and
 * missing paths, awkward file names, files that change, and an output folder
 * that cannot be written. Each case ends in a per-file error (an NDJSON line
 * with `error.code`) or a clean exit with a clear message, never a stack
 * trace, and the other files of the batch still finish.
 *
 * Not reachable from the CLI, so not here:
 * - `invalid_request` (missing `file` field, non-multipart body, missing
 *   job_id): the client always sends a well-formed multipart body with the
 *   file and the id; only a raw HTTP caller can omit them (the emulator's own
 *   contract tests cover those answers).
 * - `invalid_options`: the client builds `options` with JSON.stringify from a
 *   string model and a boolean store_db, so it can never be malformed; a bad
 *   `--model` is `unknown_model`, covered below.
 * - A 413 from the server: preflight refuses files over 10 MiB before any
 *   request, with the same code, and the emulator's limit is the same 10 MiB.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeOversizedFile } from '../../../fixtures/large.js';
import type { EmulatorEvent, RunningEmulator } from '../../../src/emulator/index.js';
import { FAST_FLAGS, emulatorEnv, expectNoContentUploadedTwice, expectNoStackTrace, readJournal, startTestEmulator } from '../../helpers/emulator-run.js';
import { runChildCli } from '../../helpers/child-run.js';
import { fullDisk } from '../../helpers/full-disk.js';
import { runCli } from '../../helpers/run-cli.js';
import { CORPUS, expectCompleteResult, makeWorkspace, parseNdjson, sha256Of } from '../../helpers/workspace.js';

// The writer seam for the injected full disk (the second ENOSPC case; transparent elsewhere).
vi.mock('node:fs/promises', async (importOriginal) => {
  const { fsPromisesWithFullDisk } = await import('../../helpers/full-disk.js');
  return fsPromisesWithFullDisk(await importOriginal());
});

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

const BASE_FLAGS = ['--json', '--rate-limit', 'none', ...FAST_FLAGS];
const isRoot = process.getuid?.() === 0;

function byName(stdout: string): Map<string, Record<string, unknown>> {
  return new Map(parseNdjson(stdout).map((line) => [String(line.file).split('/').pop() as string, line]));
}

describe('bad input: the 400 and 413 causes, per file, while the rest of the batch finishes', () => {
  it('empty, header-only, truncated, not-a-PDF, text, missing, a pipe and a broken link fail; 151 pages and over 10 MB go in parts', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({
      'good-two.pdf': 'pdf/pages-2.pdf',
      'good-seven.pdf': 'pdf/pages-7.pdf',
      'good.jpg': 'images/receipt.jpg',
      'empty.pdf': 'broken/empty.pdf',
      'header-only.pdf': 'broken/header-only.pdf',
      'truncated.pdf': 'broken/truncated.pdf',
      'not-a-pdf.pdf': 'broken/not-a-pdf.pdf',
      'over-limit-151.pdf': 'broken/over-limit-151.pdf',
    });
    makeOversizedFile(ws.inputs, { name: 'oversized.pdf' });
    const notes = join(ws.dir, 'notes.txt');
    copyFileSync(join(CORPUS, 'mislabeled/notes.txt'), notes);
    const link = join(ws.dir, 'dangling.pdf');
    symlinkSync(join(ws.dir, 'nowhere.pdf'), link);
    const hasMkfifo = spawnSync('mkfifo', [join(ws.dir, 'pipe.pdf')]).status === 0;

    const args = [
      'extract',
      ws.inputs,
      notes,
      join(ws.dir, 'missing.pdf'),
      link,
      ...(hasMkfifo ? [join(ws.dir, 'pipe.pdf')] : []),
      '--out',
      ws.out,
      ...BASE_FLAGS,
    ];
    const run = await runCli(args, { env: emulatorEnv(emu) });

    expectNoStackTrace(run.stderr);
    expect(run.code).toBe(1);
    const lines = byName(run.stdout);
    expect(lines.get('good-two.pdf')).toMatchObject({ status: 'complete', pages: 2 });
    expect(lines.get('good-seven.pdf')).toMatchObject({ status: 'complete', pages: 7 });
    expect(lines.get('good.jpg')).toMatchObject({ status: 'complete', pages: 1 });
    // Inputs from ws.dir and ws.dir/in: results mirror their paths below ws.dir.
    expectCompleteResult(join(ws.out, 'in/good-seven.pdf.json'), join(ws.inputs, 'good-seven.pdf'), 7);
    expect(lines.get('good.jpg')?.output).toBe(join(ws.out, 'in/good.jpg.json'));
    const expected: Record<string, string> = {
      'empty.pdf': 'invalid_file',
      'header-only.pdf': 'invalid_file',
      // Refused locally: its pages cannot be counted and it has no %%EOF.
      'truncated.pdf': 'invalid_file',
      'not-a-pdf.pdf': 'invalid_file_type',
      'notes.txt': 'invalid_file_type',
      'missing.pdf': 'file_not_found',
      'dangling.pdf': 'unreadable',
      ...(hasMkfifo ? { 'pipe.pdf': 'unreadable' } : {}),
    };
    for (const [name, code] of Object.entries(expected)) {
      const line = lines.get(name);
      expect(line, name).toMatchObject({ status: 'failed', output: null, error: { code } });
      expect(String((line?.error as { message: string }).message).length, `${name}: a message`).toBeGreaterThan(10);
    }
    // Past the service's limits, a PDF is cut into parts it accepts: 150 + 1 pages, and the one page
    // of a file whose 10 MB are an object no page uses (the cut leaves it out).
    // Each is one line, its parts inside.
    expect(lines.get('over-limit-151.pdf')).toMatchObject({
      status: 'complete',
      parts: [expect.objectContaining({ source_pages: expect.arrayContaining([1, 150]) }), expect.objectContaining({ source_pages: [151] })],
    });
    expect(lines.get('oversized.pdf')).toMatchObject({ status: 'complete', parts: [expect.objectContaining({ source_pages: [1] })] });
    expect(lines.size).toBe(3 + Object.keys(expected).length + 2);
    // Only the good files and the parts were sent; nothing failed was charged.
    expect(emu.counters.requestsByEndpoint.documents).toBe(3 + 3);
    expect(emu.counters.creditsCharged).toBe(2 + 7 + 1 + 151 + 1);
    expect(existsSync(join(ws.out, 'in/empty.pdf.json'))).toBe(false);
  });

  it('a misspelled --model is a usage error (exit 2) naming the closest valid names, after one free models call and nothing counted', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'short.pdf': 'pdf/pages-2.pdf', 'long.pdf': 'pdf/pages-4.pdf', 'scan.png': 'images/id-card.png' });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--model', 'invoce', ...BASE_FLAGS], { env: emulatorEnv(emu) });
    expectNoStackTrace(run.stderr);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('unknown document type \\"invoce\\"; did you mean \\"invoice\\"?');
    expect(run.stderr).toContain('Nothing was sent.');
    expect(run.stderr).toContain('List the document types this key may use: docextract models');
    expect(emu.counters.requestsByEndpoint).toMatchObject({ models: 1, documents: 0, process: 0, result: 0 });
    expect(emu.counters.creditsCharged).toBe(0);
  });

  // Root reads a chmod 000 file, and CI runs as root: the built CLI runs in a child that file modes bind.
  it('an unreadable file (chmod 000) is file_unreadable; the rest finishes', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'locked.pdf': 'pdf/pages-2.pdf', 'open.pdf': 'pdf/pages-1.pdf' });
    chmodSync(join(ws.inputs, 'locked.pdf'), 0o000);
    try {
      const run = await runChildCli(['extract', ws.inputs, '--out', ws.out, ...BASE_FLAGS], emulatorEnv(emu), { honourFileModes: true });
      expectNoStackTrace(run.stderr);
      expect(run.code).toBe(1);
      const lines = byName(run.stdout);
      expect(lines.get('locked.pdf')).toMatchObject({
        status: 'failed',
        error: { code: 'file_unreadable', message: expect.stringContaining('permission denied') },
      });
      expect(lines.get('open.pdf')).toMatchObject({ status: 'complete' });
      expect(emu.counters.requestsByEndpoint.documents).toBe(1);
    } finally {
      chmodSync(join(ws.inputs, 'locked.pdf'), 0o644);
    }
  });
});

describe('bad input: folders and paths', () => {
  it('a folder with no documents is a usage error (exit 2) that sends nothing; skipped files are named', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'docs/notes.txt': 'mislabeled/notes.txt' });
    mkdirSync(join(ws.inputs, 'empty-folder'), { recursive: true });
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, ...BASE_FLAGS], { env: emulatorEnv(emu) });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expectNoStackTrace(run.stderr);
    expect(run.stderr).toContain('notes.txt');
    expect(run.stderr).toMatch(/No PDF, JPEG or PNG files found/);
    expect(emu.counters.requestsByEndpoint.documents).toBe(0);
  });

  it('only missing paths: one failed line each, exit 1, nothing sent', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({});
    const run = await runCli(['extract', join(ws.dir, 'gone.pdf'), join(ws.dir, 'no-folder/'), '--out', ws.out, ...BASE_FLAGS], { env: emulatorEnv(emu) });
    expectNoStackTrace(run.stderr);
    expect(run.code).toBe(1);
    expect(parseNdjson(run.stdout).map((line) => (line.error as { code: string }).code)).toEqual(['file_not_found', 'file_not_found']);
    expect(emu.counters.requestsByEndpoint.documents).toBe(0);
  });

  it("nested folders mirror into --out below the inputs' deepest common folder; a file named twice is taken once", async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'a/b/c/deep.pdf': 'pdf/pages-4.pdf', 'a/top.png': 'images/logo-with-alpha.png' });
    const run = await runCli(['extract', ws.inputs, join(ws.inputs, 'a/top.png'), '--out', ws.out, ...BASE_FLAGS], { env: emulatorEnv(emu) });
    expectNoStackTrace(run.stderr);
    expect(run.code, run.stderr).toBe(0);
    expect(parseNdjson(run.stdout)).toHaveLength(2);
    // Both inputs live below in/a: that is the base the results mirror.
    expectCompleteResult(join(ws.out, 'b/c/deep.pdf.json'), join(ws.inputs, 'a/b/c/deep.pdf'), 4);
    expectCompleteResult(join(ws.out, 'top.png.json'), join(ws.inputs, 'a/top.png'), 1);
    expect(emu.counters.requestsByEndpoint.documents).toBe(2);
  });
});

describe('bad input: file names', () => {
  it('spaces, unicode, quotes, #, glob brackets and a newline: every file completes under its own name', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({
      'with spaces.pdf': 'names/with spaces.pdf',
      'ünïcødé 文書.pdf': 'names/ünïcødé 文書.pdf',
      'hash#1.pdf': 'names/hash#1.pdf',
      'brackets [1].pdf': 'names/brackets [1].pdf',
      'it\'s "quoted".pdf': 'names/it\'s "quoted".pdf',
      'long name with spaces & ünïcødé #2.pdf': 'pdf/pages-4.pdf',
    });
    const newline = 'line\nbreak.pdf';
    copyFileSync(join(CORPUS, 'pdf/pages-2.pdf'), join(ws.inputs, newline));
    const names = [
      'with spaces.pdf',
      'ünïcødé 文書.pdf',
      'hash#1.pdf',
      'brackets [1].pdf',
      'it\'s "quoted".pdf',
      'long name with spaces & ünïcødé #2.pdf',
      newline,
    ];

    // The folder, and two of the names given literally (one of them looks like a glob).
    const run = await runCli(['extract', ws.inputs, join(ws.inputs, 'brackets [1].pdf'), join(ws.inputs, newline), '--out', ws.out, ...BASE_FLAGS], {
      env: emulatorEnv(emu),
    });
    expectNoStackTrace(run.stderr);
    expect(run.code, run.stderr).toBe(0);
    const lines = byName(run.stdout);
    expect(lines.size).toBe(names.length);
    for (const name of names) {
      const pages = name.startsWith('long') ? 4 : name === newline ? 2 : 1;
      expect(lines.get(name), JSON.stringify(name)).toMatchObject({ status: 'complete', output: join(ws.out, `${name}.json`) });
      expectCompleteResult(join(ws.out, `${name}.json`), join(ws.inputs, name), pages);
    }
    expectNoContentUploadedTwice(emu, 1);
  });
});

describe('bad input: files that change', () => {
  it('same path, new content on the next run: a new document, uploaded once, its result overwritten', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'doc.pdf': 'pdf/pages-2.pdf', 'long.pdf': 'pdf/pages-4.pdf' });
    const env = emulatorEnv(emu);
    const args = ['extract', ws.inputs, '--out', ws.out, ...BASE_FLAGS];
    const oldShas = [sha256Of(join(ws.inputs, 'doc.pdf')), sha256Of(join(ws.inputs, 'long.pdf'))];
    expect((await runCli(args, { env })).code).toBe(0);

    copyFileSync(join(CORPUS, 'pdf/pages-3.pdf'), join(ws.inputs, 'doc.pdf'));
    copyFileSync(join(CORPUS, 'pdf/pages-7.pdf'), join(ws.inputs, 'long.pdf'));
    const second = await runCli(args, { env });
    expectNoStackTrace(second.stderr);
    expect(second.code, second.stderr).toBe(0);
    expect(byName(second.stdout).get('doc.pdf')).toMatchObject({ status: 'complete', pages: 3, credits: 3 });
    expectCompleteResult(join(ws.out, 'doc.pdf.json'), join(ws.inputs, 'doc.pdf'), 3);
    expectCompleteResult(join(ws.out, 'long.pdf.json'), join(ws.inputs, 'long.pdf'), 7);
    for (const sha of [...oldShas, sha256Of(join(ws.inputs, 'doc.pdf')), sha256Of(join(ws.inputs, 'long.pdf'))])
      expect(emu.counters.uploadsBySha256[sha]).toBe(1);
    expect(emu.counters.creditsCharged).toBe(2 + 4 + 3 + 7);

    // And a third run costs nothing.
    const before = emu.counters.requestsByEndpoint.documents;
    expect((await runCli(args, { env })).code).toBe(0);
    expect(emu.counters.requestsByEndpoint.documents).toBe(before);
  });

  it('a file that changes while the batch runs is file_changed (nothing sent for it); the next run sends the new content', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'a.pdf': 'pdf/pages-1.pdf', 'b.pdf': 'pdf/pages-2.pdf' });
    const env = emulatorEnv(emu);
    const oldB = sha256Of(join(ws.inputs, 'b.pdf'));
    // One request at a time: b.pdf is read for its upload only after a.pdf's answer, so
    // replacing it while a.pdf is on the server lands between preflight and upload.
    emu.events.on('event', (event: EmulatorEvent) => {
      if (event.type === 'upload' && event.filename === 'a.pdf') copyFileSync(join(CORPUS, 'pdf/pages-3.pdf'), join(ws.inputs, 'b.pdf'));
    });
    const args = ['extract', ws.inputs, '--out', ws.out, '--concurrency', '1', ...BASE_FLAGS];
    const run = await runCli(args, { env });
    expectNoStackTrace(run.stderr);
    expect(run.code).toBe(1);
    expect(byName(run.stdout).get('a.pdf')).toMatchObject({ status: 'complete' });
    expect(byName(run.stdout).get('b.pdf')).toMatchObject({ status: 'failed', error: { code: 'file_changed' } });
    expect(emu.counters.uploadsBySha256[oldB]).toBeUndefined();

    const again = await runCli(args, { env });
    expect(again.code, again.stderr).toBe(0);
    expectCompleteResult(join(ws.out, 'b.pdf.json'), join(ws.inputs, 'b.pdf'), 3);
    expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'a.pdf'))]).toBe(1);
  });
});

describe('bad input: an output folder that cannot be written', () => {
  it('--out below a regular file: exit 2 naming it before anything is sent (no credit spent on a result that could not be saved)', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-7.pdf', 'short.pdf': 'pdf/pages-2.pdf', 'scan.jpg': 'images/receipt.jpg' });
    const blocker = join(ws.dir, 'blocker');
    writeFileSync(blocker, 'a regular file where a folder should be');
    const env = emulatorEnv(emu);
    const args = ['extract', ws.inputs, '--out', join(blocker, 'out'), ...BASE_FLAGS];
    const first = await runCli(args, { env });
    expectNoStackTrace(first.stderr);
    expect(first.code).toBe(2);
    expect(first.stderr).toContain(`--out ${join(blocker, 'out')}: ${join(blocker, 'out')} is below ${blocker}, which is a file`);
    expect(Object.values(emu.counters.requestsByEndpoint).reduce((a, b) => a + b, 0)).toBe(0);

    rmSync(blocker);
    const second = await runCli(args, { env });
    expect(second.code, second.stderr).toBe(0);
    expectCompleteResult(join(blocker, 'out/long.pdf.json'), join(ws.inputs, 'long.pdf'), 7);
    expect(Object.values(emu.counters.uploadsBySha256)).toEqual([1, 1, 1]);
    expect(emu.counters.creditsCharged).toBe(7 + 2 + 1);
  });

  /**
   * The output folder breaks once the batch is under way (at the first upload): results cannot
   * be written, nothing is finalized, and after `fix()` the same command finishes without a new
   * upload of the split file, nor of the one answered at once (its answer was kept in the state folder).
   */
  async function expectResumableAfterWriteFailure(out: string, expectedErrno: RegExp, breakIt: () => void, fix: () => void): Promise<void> {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-7.pdf', 'short.pdf': 'pdf/pages-2.pdf' });
    const env = emulatorEnv(emu);
    const args = ['extract', ws.inputs, '--out', out, ...BASE_FLAGS];
    let broken = false;
    const onEvent = (event: EmulatorEvent): void => {
      if (event.type !== 'upload' || broken) return;
      broken = true;
      breakIt();
    };
    emu.events.on('event', onEvent);

    const first = await runCli(args, { env });
    emu.events.off('event', onEvent);
    expectNoStackTrace(first.stderr);
    expect(first.code).toBe(1);
    const lines = byName(first.stdout);
    for (const name of ['long.pdf', 'short.pdf']) {
      const line = lines.get(name) as { status: string; error: { code: string; message: string } };
      expect(line, name).toMatchObject({ status: 'failed', error: { code: 'output_write_failed' } });
      expect(line.error.message).toMatch(expectedErrno);
      expect(line.error.message).toContain('nothing was finalized');
    }
    expect(emu.counters.finalizedJobs).toBe(0);
    // The split job stays resumable: journaled, chunks done, not finalized.
    const journal = readJournal(env.DOCEXTRACT_STATE_DIR as string);
    const manifest = journal.find((record) => record.type === 'manifest');
    expect(manifest).toBeDefined();
    expect(journal.some((record) => record.type === 'finalized')).toBe(false);
    expect(emu.counters.creditsCharged).toBe(7 + 2);

    fix();
    const second = await runCli(args, { env });
    expectNoStackTrace(second.stderr);
    expect(second.code, second.stderr).toBe(0);
    expectCompleteResult(join(out, 'long.pdf.json'), join(ws.inputs, 'long.pdf'), 7);
    expectCompleteResult(join(out, 'short.pdf.json'), join(ws.inputs, 'short.pdf'), 2);
    // The split file resumed its job: no new upload, no chunk charged twice, finalized once.
    expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'long.pdf'))]).toBe(1);
    expect(emu.counters.finalizedJobs).toBe(1);
    expect(JSON.parse(readFileSync(join(out, 'long.pdf.json'), 'utf8'))).toMatchObject({ job: { parent_job_id: manifest?.parentJobId } });
    // The sync file's answer was kept in the state folder when its write failed: written now, not paid again.
    expect(emu.counters.uploadsBySha256[sha256Of(join(ws.inputs, 'short.pdf'))]).toBe(1);
    expect(emu.counters.creditsCharged).toBe(7 + 2);
  }

  it('--out replaced by a regular file mid-run (ENOTDIR / EEXIST): per-file output_write_failed, nothing finalized, resumable', async () => {
    const ws = makeWorkspace({});
    const out = join(ws.dir, 'out');
    await expectResumableAfterWriteFailure(
      out,
      /ENOTDIR|EEXIST/,
      () => {
        rmSync(out, { recursive: true, force: true });
        writeFileSync(out, 'a regular file where the output folder was');
      },
      () => rmSync(out),
    );
  });

  /** A full disk, twice: full at the start (nothing sent), and filled mid-run (output_write_failed, nothing finalized, resumable). */
  async function expectFullDiskHandled(diskDir: string, fill: () => void, empty: () => void): Promise<void> {
    // Full before the run: nothing is sent.
    fill();
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'short.pdf': 'pdf/pages-2.pdf' });
    const full = await runCli(['extract', ws.inputs, '--out', join(diskDir, 'out'), ...BASE_FLAGS], { env: emulatorEnv(emu) });
    expect(full.code).toBe(1);
    expect(parseNdjson(full.stdout)[0]).toMatchObject({ status: 'failed', error: { code: 'output_write_failed', message: expect.stringMatching(/ENOSPC/) } });
    expect(emu.counters.requestsByEndpoint.documents).toBe(0);
    await emu.close();
    empty();

    // Filled while the batch runs.
    await expectResumableAfterWriteFailure(join(diskDir, 'out'), /ENOSPC/, fill, empty);
  }

  // A real tiny tmpfs needs mount rights (root, a container that allows it). Where it cannot be
  // mounted this case is reported as skipped, with the reason on stderr: never replaced silently
  // by the injected one below, which runs everywhere and is titled as what it is.
  it('a full disk on a real 64 KiB tmpfs (ENOSPC): nothing sent when full at the start; filled mid-run: output_write_failed, nothing finalized, resumable', async (context) => {
    const diskDir = join(makeWorkspace({}).dir, 'tiny-fs');
    mkdirSync(diskDir, { recursive: true });
    const mount = isRoot ? spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', diskDir], { encoding: 'utf8' }) : undefined;
    if (mount?.status !== 0) {
      const why = mount ? `mount -t tmpfs failed: ${(mount.stderr || String(mount.error)).trim()}` : 'not root';
      process.stderr.write(`bad-input: SKIPPED the real full-disk case, no tmpfs could be mounted (${why}); only the injected ENOSPC case ran\n`);
      context.skip(`no tmpfs could be mounted (${why})`);
      return;
    }
    const filler = join(diskDir, 'filler');
    const fill = (): void => {
      try {
        writeFileSync(filler, Buffer.alloc(1024 * 1024));
      } catch {
        // ENOSPC: the disk is now full, which is the point.
      }
    };
    try {
      await expectFullDiskHandled(diskDir, fill, () => rmSync(filler));
    } finally {
      spawnSync('umount', [diskDir]);
    }
  });

  it('a full disk injected through fs/promises (every write below the folder fails with ENOSPC): the same outcomes as the real one', async () => {
    const diskDir = join(makeWorkspace({}).dir, 'full-folder');
    mkdirSync(diskDir, { recursive: true });
    try {
      await expectFullDiskHandled(
        diskDir,
        () => fullDisk.fill(diskDir),
        () => fullDisk.empty(diskDir),
      );
    } finally {
      fullDisk.empty(diskDir);
    }
  });
});

describe('bad input: a state folder that cannot be used', () => {
  it('DOCEXTRACT_STATE_DIR below a regular file: a clear message naming it, no stack trace, nothing sent', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'doc.pdf': 'pdf/pages-2.pdf' });
    const blocker = join(ws.dir, 'blocker');
    writeFileSync(blocker, 'not a folder');
    const run = await runCli(['extract', ws.inputs, '--out', ws.out, '--rate-limit', 'none'], {
      env: emulatorEnv(emu, { DOCEXTRACT_STATE_DIR: join(blocker, 'state') }),
    });
    expectNoStackTrace(run.stderr);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: .*blocker.*ENOTDIR.*\(state_dir_unusable\)/m);
    expect(run.stderr).toContain('DOCEXTRACT_STATE_DIR');
    expect(emu.counters.requestsByEndpoint.documents).toBe(0);
  });
});

describe('bad input: collect with a job id it cannot finish', () => {
  it('a job finalized and gone from the journal: its result on disk answers, nothing is sent', async () => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-4.pdf' });
    const env = emulatorEnv(emu);
    const done = await runCli(['extract', ws.inputs, '--out', ws.out, ...BASE_FLAGS], { env });
    const jobId = String(parseNdjson(done.stdout)[0]?.job_id);
    const uploads = emu.counters.requestsByEndpoint.documents;
    const run = await runCli(['collect', jobId, '--out', ws.out, ...BASE_FLAGS], { env });
    expectNoStackTrace(run.stderr);
    expect(run.code).toBe(0);
    expect(parseNdjson(run.stdout)).toEqual([expect.objectContaining({ status: 'complete', job_id: jobId })]);
    expect(run.stderr).toContain('its result is on disk');
    expect(emu.counters.requestsByEndpoint.documents).toBe(uploads);
  });

  it.each([
    ['an id the server does not know', 'job_000000000000000000000000', 'job_not_found'],
    ['a finalized job whose result is not in --out', 'finalized', 'job_expired'],
  ])('%s: a clear per-job error, no stack trace, nothing uploaded', async (_what, id, code) => {
    const emu = (emulator = await startTestEmulator());
    const ws = makeWorkspace({ 'long.pdf': 'pdf/pages-4.pdf' });
    const env = emulatorEnv(emu);
    let jobId = id;
    if (id === 'finalized') {
      const done = await runCli(['extract', ws.inputs, '--out', ws.out, ...BASE_FLAGS], { env });
      jobId = String(parseNdjson(done.stdout)[0]?.job_id);
    }
    const uploads = emu.counters.requestsByEndpoint.documents;
    const run = await runCli(['collect', jobId, '--out', join(ws.dir, 'elsewhere'), ...BASE_FLAGS], { env });
    expectNoStackTrace(run.stderr);
    expect(run.code).toBe(1);
    expect(parseNdjson(run.stdout)).toEqual([expect.objectContaining({ status: 'failed', error: expect.objectContaining({ code }) })]);
    expect(run.stderr).not.toContain('uploading it again');
    expect(emu.counters.requestsByEndpoint.documents).toBe(uploads);
  });
});
