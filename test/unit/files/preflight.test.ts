import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOversizedFile, makePdfWithFiller, makePdfWithPages } from '../../../fixtures/large.js';
import { MAX_FILE_BYTES, preflightFile, sha256File, type PreflightResult } from '../../../src/files/preflight.js';
import { callBuiltHonouringFileModes } from '../../helpers/file-modes.js';
import { corpusFiles, corpusPath } from './corpus.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'docextract-preflight-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function expectRejected(result: PreflightResult, code: string): asserts result is Extract<PreflightResult, { ok: false }> {
  expect(result).toMatchObject({ ok: false, code });
}

describe('preflightFile on the corpus', () => {
  it.each(corpusFiles().map((file) => [file.name, file] as const))('%s', async (_name, file) => {
    const result = await preflightFile(corpusPath(file));
    if (file.preflight !== null) {
      expect(result).toMatchObject({ ok: false, code: file.preflight });
      return;
    }
    const pages = file.pages ?? undefined;
    expect(result).toEqual({
      ok: true,
      path: corpusPath(file),
      size: statSync(corpusPath(file)).size,
      sha256: createHash('sha256')
        .update(readFileSync(corpusPath(file)))
        .digest('hex'),
      type: file.type,
      contentType: { pdf: 'application/pdf', jpeg: 'image/jpeg', png: 'image/png' }[file.type ?? 'pdf'],
      pages,
      split: pages !== undefined && pages > 3,
    });
  });
});

describe('preflightFile limits', () => {
  it('rejects a file over 10 MiB as file_too_large, from its size alone', async () => {
    const path = makeOversizedFile(dir);
    const result = await preflightFile(path, { displayName: 'big.pdf' });
    expectRejected(result, 'file_too_large');
    expect(result.size).toBe(statSync(path).size);
    expect(result.sha256).toBeUndefined(); // not read, so not hashed
    expect(result.message).toContain('big.pdf');
    expect(result.message).toContain('10 MB (10,485,760 bytes)');
  });

  it('pastLimits: takes a PDF over 10 MiB (to be cut into parts), but still refuses an image over 10 MiB from its first bytes', async () => {
    const pdf = makeOversizedFile(dir, { name: 'big-to-cut.pdf' });
    expect(await preflightFile(pdf, { pastLimits: true })).toMatchObject({ ok: true, type: 'pdf', size: statSync(pdf).size, pages: 1 });
    const png = join(dir, 'big.png');
    writeFileSync(png, Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(MAX_FILE_BYTES)]));
    const image = await preflightFile(png, { pastLimits: true });
    expectRejected(image, 'file_too_large');
    expect(image.sha256).toBeUndefined(); // refused from its first bytes, never read whole
  });

  it('pastLimits: takes a PDF of more than 150 pages', async () => {
    const path = join(dir, '151-to-cut.pdf');
    writeFileSync(path, await makePdfWithPages(151));
    expect(await preflightFile(path, { pastLimits: true })).toMatchObject({ ok: true, pages: 151 });
  });

  it('takes a file of exactly 10 MiB and refuses one byte more', async () => {
    const path = join(dir, 'exactly-10-mib.pdf');
    const pdf = makePdfWithFiller(MAX_FILE_BYTES - 4096);
    writeFileSync(path, pdf);
    appendFileSync(path, Buffer.alloc(MAX_FILE_BYTES - pdf.length, '\n'));
    expect(await preflightFile(path)).toMatchObject({ ok: true, size: MAX_FILE_BYTES, pages: 1, split: false });
    appendFileSync(path, '\n');
    expectRejected(await preflightFile(path), 'file_too_large');
  });

  it('takes 150 pages (split into chunks) and rejects 151 as page_limit_exceeded', async () => {
    const at150 = join(dir, '150.pdf');
    const at151 = join(dir, '151.pdf');
    writeFileSync(at150, await makePdfWithPages(150));
    writeFileSync(at151, await makePdfWithPages(151));
    expect(await preflightFile(at150)).toMatchObject({ ok: true, pages: 150, split: true });
    const rejected = await preflightFile(at151, { displayName: 'in/151.pdf' });
    expectRejected(rejected, 'page_limit_exceeded');
    expect(rejected).toMatchObject({ pages: 151, message: expect.stringMatching(/in\/151\.pdf has 151 pages.*at most 150/) });
  });

  it('splits only PDFs of more than 3 pages', async () => {
    expect(await preflightFile(corpusPath('pdf/pages-3.pdf'))).toMatchObject({ pages: 3, split: false });
    expect(await preflightFile(corpusPath('pdf/pages-4.pdf'))).toMatchObject({ pages: 4, split: true });
  });
});

describe('preflightFile on files that are not documents', () => {
  it('names the accepted types when the content is not one of them', async () => {
    const result = await preflightFile(corpusPath('broken/not-a-pdf.pdf'), { displayName: 'not-a-pdf.pdf' });
    expectRejected(result, 'invalid_file_type');
    expect(result.message).toMatch(/not-a-pdf\.pdf is not a PDF, JPEG or PNG file/);
  });

  it('reports a missing file as file_not_found', async () => {
    expectRejected(await preflightFile(join(dir, 'nope.pdf')), 'file_not_found');
    expectRejected(await preflightFile(join(dir, 'nope', 'below-a-missing-folder.pdf')), 'file_not_found');
  });

  it('rejects a folder as invalid_file', async () => {
    mkdirSync(join(dir, 'a-folder.pdf'));
    expectRejected(await preflightFile(join(dir, 'a-folder.pdf')), 'invalid_file');
  });

  it('rejects a named pipe without waiting for a writer', async () => {
    const fifo = join(dir, 'pipe.pdf');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expectRejected(await preflightFile(fifo), 'invalid_file');
  });

  // Root reads anything, and CI runs as root: the check runs in a child that file modes bind.
  it('reports a file without read permission as file_unreadable', async () => {
    const path = join(dir, 'locked.pdf');
    writeFileSync(path, await makePdfWithPages(1), { mode: 0o000 });
    const result = await callBuiltHonouringFileModes<PreflightResult>('files/preflight.js', 'preflightFile', [path]);
    expectRejected(result, 'file_unreadable');
    expect(result.message).toContain('permission denied');
  });
});

describe('sha256File', () => {
  it('streams the same digest as hashing the whole file', async () => {
    const path = corpusPath('pdf/pages-60.pdf');
    expect(await sha256File(path)).toBe(createHash('sha256').update(readFileSync(path)).digest('hex'));
  });
});

describe('preflightFile messages', () => {
  const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

  it('words each rejection exactly, with what it learned', async () => {
    const empty = join(dir, 'empty.pdf');
    writeFileSync(empty, '');
    expect(await preflightFile(empty, { displayName: 'empty.pdf' })).toEqual({
      ok: false,
      path: empty,
      code: 'invalid_file',
      message: 'empty.pdf is empty (0 bytes).',
      size: 0,
    });

    expect(await preflightFile(dir, { displayName: 'inbox' })).toEqual({ ok: false, path: dir, code: 'invalid_file', message: 'inbox is not a regular file.' });

    const text = join(dir, 'notes.pdf');
    writeFileSync(text, 'plain words');
    expect(await preflightFile(text, { displayName: 'notes.pdf' })).toEqual({
      ok: false,
      path: text,
      code: 'invalid_file_type',
      message: 'notes.pdf is not a PDF, JPEG or PNG file (judged by its content, not its name); the service accepts only those.',
      size: 11,
      sha256: sha('plain words'),
    });

    const header = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
    const cut = join(dir, 'cut.pdf');
    writeFileSync(cut, Buffer.from(header, 'latin1'));
    expect(await preflightFile(cut, { displayName: 'cut.pdf' })).toEqual({
      ok: false,
      path: cut,
      code: 'invalid_file',
      message: 'cut.pdf starts like a PDF but holds no PDF objects; it looks truncated.',
      size: Buffer.byteLength(header, 'latin1'),
      sha256: createHash('sha256').update(Buffer.from(header, 'latin1')).digest('hex'),
    });
  });

  it('refuses a PDF cut short (no %%EOF, pages uncounted) before a request is spent on it', async () => {
    // 38 bytes: an interrupted download that got as far as the first object.
    const start = '%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pa';
    const cut = join(dir, 'cut-38.pdf');
    writeFileSync(cut, start, 'latin1');
    expect(await preflightFile(cut, { displayName: 'cut-38.pdf' })).toEqual({
      ok: false,
      path: cut,
      code: 'invalid_file',
      message: 'cut-38.pdf starts like a PDF but ends before its end marker (%%EOF), and its pages cannot be found; it looks truncated.',
      size: 38,
      sha256: sha(start),
    });
  });

  it('names the 10 MB limit for a PDF over it that cannot be cut into parts (it looks truncated)', async () => {
    const filler = Buffer.alloc(11 * 1024 * 1024, 0x20);
    const big = join(dir, 'cut-11mb.pdf');
    writeFileSync(big, Buffer.concat([Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n', 'latin1'), filler]));
    const size = statSync(big).size;
    const result = await preflightFile(big, { displayName: 'cut-11mb.pdf', pastLimits: true });
    expectRejected(result, 'file_too_large');
    expect(result.message).toBe(
      `cut-11mb.pdf is 11.0 MB (${size.toLocaleString('en-US')} bytes); the service accepts files up to 10 MB (10,485,760 bytes), and this PDF cannot be cut into parts: it ends before its end marker (%%EOF), and its pages cannot be found; it looks truncated.`,
    );
  });

  it('gives the size of a file too large in MB and bytes', async () => {
    const path = makeOversizedFile(dir);
    const size = statSync(path).size;
    const result = await preflightFile(path, { displayName: 'big.pdf' });
    expectRejected(result, 'file_too_large');
    expect(result.message).toBe(
      `big.pdf is ${(size / 1_048_576).toFixed(1)} MB (${size.toLocaleString('en-US')} bytes); the service accepts files up to 10 MB (10,485,760 bytes).`,
    );
  });

  it('names the file-system error code of a file it cannot read', async () => {
    const loop = join(dir, 'loop.pdf');
    symlinkSync(loop, loop);
    expect(await preflightFile(loop, { displayName: 'loop.pdf' })).toEqual({
      ok: false,
      path: loop,
      code: 'file_unreadable',
      message: 'loop.pdf cannot be read (ELOOP).',
    });
  });
});

describe('preflightFile confined to a watched folder', () => {
  const jpeg = (): Buffer => readFileSync(corpusPath('images/receipt.jpg'));

  it('refuses a link to a file (file_is_link) that it follows when not confined, and takes a plain file', async () => {
    const root = join(dir, 'confined-links');
    mkdirSync(root, { recursive: true });
    const outside = join(dir, 'outside.jpg');
    writeFileSync(outside, jpeg());
    symlinkSync(outside, join(root, 'link.jpg'));
    writeFileSync(join(root, 'plain.jpg'), jpeg());

    const refused = await preflightFile(join(root, 'link.jpg'), { confinedTo: root });
    expectRejected(refused, 'file_is_link');
    expect(refused.message).toContain('link.jpg');
    expect(refused.sha256).toBeUndefined(); // nothing of the target was read
    expect(await preflightFile(join(root, 'link.jpg'))).toMatchObject({ ok: true }); // extract's named file: followed
    expect(await preflightFile(join(root, 'plain.jpg'), { confinedTo: root })).toMatchObject({ ok: true, type: 'jpeg' });
  });

  it('refuses a file reached through a folder link out of the watched folder', async () => {
    const root = join(dir, 'confined-folders');
    const elsewhere = join(dir, 'elsewhere-folder');
    mkdirSync(root, { recursive: true });
    mkdirSync(elsewhere, { recursive: true });
    writeFileSync(join(elsewhere, 'scan.jpg'), jpeg());
    symlinkSync(elsewhere, join(root, 'sub'));

    expectRejected(await preflightFile(join(root, 'sub', 'scan.jpg'), { confinedTo: root }), 'file_is_link');
  });
});
