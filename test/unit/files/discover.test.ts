import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverListed, type ListedDiscovery } from '../../helpers/discovered.js';
import { hasSupportedExtension } from '../../../src/files/paths.js';
import { AllowedFolders, isInsideFolder, realPathOf } from '../../../src/files/allowed-folders.js';
import { callBuiltHonouringFileModes } from '../../helpers/file-modes.js';
import { CORPUS_DIR, corpusFiles } from './corpus.js';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'docextract-discover-')));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function files(...paths: string[]): void {
  for (const path of paths) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), path);
  }
}

const discover = (...args: string[]): Promise<ListedDiscovery> => discoverListed(args, { cwd: root });
const shown = (result: ListedDiscovery): string[] => result.inputs.map((input) => input.displayPath);
const skippedNames = (result: ListedDiscovery): Record<string, string> =>
  Object.fromEntries(result.skipped.map((file) => [file.path.slice(root.length + 1), file.reason]));

describe('discoverInputs: files and folders', () => {
  it('takes a named file whatever its extension, and marks how it was found', async () => {
    files('notes.txt', 'scan.PDF');
    const result = await discover('notes.txt', 'scan.PDF');
    expect(result.inputs).toEqual([
      { path: join(root, 'notes.txt'), displayPath: 'notes.txt', fromFolder: false, via: 'file' },
      { path: join(root, 'scan.PDF'), displayPath: 'scan.PDF', fromFolder: false, via: 'file' },
    ]);
    expect(result.problems).toEqual([]);
  });

  it('searches a folder recursively in sorted order, skipping other extensions and reporting them', async () => {
    files('in/b.pdf', 'in/a/z.JPG', 'in/a/y.jpeg', 'in/a-b.png', 'in/notes.txt', 'in/sub/deeper/x.pdf', 'in/data.json');
    const result = await discover('in');
    expect(shown(result)).toEqual(['in/a/y.jpeg', 'in/a/z.JPG', 'in/a-b.png', 'in/b.pdf', 'in/sub/deeper/x.pdf']);
    expect(result.inputs.every((input) => input.fromFolder && input.via === 'folder')).toBe(true);
    expect(skippedNames(result)).toEqual({
      'in/data.json': expect.stringContaining('not a PDF, JPEG or PNG file name'),
      'in/notes.txt': expect.stringContaining('not a PDF, JPEG or PNG file name'),
    });
  });

  it('passes over hidden files and folders and reports each once', async () => {
    files('in/.DS_Store', 'in/.cache/a.pdf', 'in/.hidden.pdf', 'in/visible.pdf');
    const result = await discover('in');
    expect(shown(result)).toEqual(['in/visible.pdf']);
    expect(skippedNames(result)).toEqual({
      'in/.DS_Store': 'hidden file',
      'in/.cache': 'hidden folder (not searched)',
      'in/.hidden.pdf': 'hidden file',
    });
  });

  it('keeps the order of the arguments and takes each file once', async () => {
    files('in/a.pdf', 'in/b.pdf', 'c.pdf');
    const result = await discover('c.pdf', 'in', 'in/a.pdf', './c.pdf', join(root, 'in/b.pdf'), 'in/*.pdf');
    expect(shown(result)).toEqual(['c.pdf', 'in/a.pdf', 'in/b.pdf']);
    expect(result.skipped).toEqual([]);
  });

  it('reports a second path to a file already taken (a symbolic link) and takes the file once', async () => {
    files('in/a.pdf');
    symlinkSync(join(root, 'in/a.pdf'), join(root, 'alias.pdf'));
    const result = await discover('in', 'alias.pdf');
    expect(shown(result)).toEqual(['in/a.pdf']);
    expect(skippedNames(result)).toEqual({ 'alias.pdf': 'same file as in/a.pdf' });
  });

  it('reports missing paths as file_not_found and carries on', async () => {
    files('a.pdf');
    const result = await discover('missing.pdf', 'a.pdf', 'no/such/folder', '');
    expect(shown(result)).toEqual(['a.pdf']);
    expect(result.problems.map((problem) => [problem.arg, problem.code])).toEqual([
      ['missing.pdf', 'file_not_found'],
      ['no/such/folder', 'file_not_found'],
      ['', 'file_not_found'],
    ]);
    // The outcome names the path (`file`); the message says only what is wrong with it, so no line says the path twice.
    expect(result.problems[0]?.message).toBe('no such file or folder.');
  });

  it('shows paths outside the working folder as absolute', async () => {
    files('elsewhere/a.pdf', 'here/b.pdf');
    const result = await discoverListed([join(root, 'elsewhere/a.pdf'), 'b.pdf'], { cwd: join(root, 'here') });
    expect(shown(result)).toEqual([join(root, 'elsewhere/a.pdf'), 'b.pdf']);
  });
});

// Root reads any folder, and CI runs as root: the search runs in a child that file modes bind.
describe('discoverInputs: folders without read permission', () => {
  afterEach(() => chmodSync(join(root, 'in/locked'), 0o755));

  it('reports an unreadable subfolder as skipped and an unreadable named folder as a problem', async () => {
    files('in/ok.pdf', 'in/locked/secret.pdf');
    chmodSync(join(root, 'in/locked'), 0o000);
    const result = await callBuiltHonouringFileModes<ListedDiscovery>('files/discover.js', 'discoverInputs', [['in', 'in/locked'], { cwd: root }]);
    expect(shown(result)).toEqual(['in/ok.pdf']);
    expect(skippedNames(result)).toEqual({ 'in/locked': 'folder cannot be read (permission denied)' });
    expect(result.problems).toEqual([{ arg: 'in/locked', code: 'unreadable', message: expect.stringContaining('permission denied') }]);
  });
});

describe('discoverInputs: globs', () => {
  it('expands a quoted recursive glob itself, sorted, so no shell globstar is needed', async () => {
    files('in/b/x.pdf', 'in/a/x.pdf', 'in/top.pdf', 'in/a/skip.png');
    const result = await discover('./in/**/*.pdf');
    expect(shown(result)).toEqual(['in/a/x.pdf', 'in/b/x.pdf', 'in/top.pdf']);
    expect(result.inputs.every((input) => input.via === 'glob' && input.fromFolder)).toBe(true);
  });

  it('searches folders a glob matches, and skips unsupported names it matches', async () => {
    files('in/2024/a.pdf', 'in/2024/b.txt', 'in/readme.md');
    const result = await discover('in/*');
    expect(shown(result)).toEqual(['in/2024/a.pdf']);
    expect(Object.keys(skippedNames(result))).toEqual(['in/2024/b.txt', 'in/readme.md']);
  });

  it('reports a glob that matches nothing as no_match', async () => {
    files('in/a.png');
    const result = await discover('in/**/*.pdf');
    expect(result.inputs).toEqual([]);
    expect(result.problems).toEqual([{ arg: 'in/**/*.pdf', code: 'no_match', message: 'no file matches this pattern.' }]);
  });

  it('takes a name that looks like a glob literally when it exists', async () => {
    files('brackets [1].pdf', 'brackets 1.pdf', 'star*.pdf', 'starfish.pdf');
    const result = await discover('brackets [1].pdf', 'star*.pdf');
    expect(shown(result)).toEqual(['brackets [1].pdf', 'star*.pdf']);
  });
});

describe('discoverInputs: odd names', () => {
  it('handles spaces, unicode, #, quotes and a newline in names', async () => {
    const names = ['with spaces.pdf', 'ünïcødé 文書.pdf', 'hash#1.pdf', `it's "quoted".pdf`, 'line\nbreak.pdf'];
    files(...names.map((name) => `odd/${name}`));
    const fromFolder = await discover('odd');
    expect(shown(fromFolder).sort()).toEqual(names.map((name) => `odd/${name}`).sort());
    const named = await discover(...names.map((name) => `odd/${name}`));
    expect(shown(named)).toEqual(names.map((name) => `odd/${name}`));
    expect(named.problems).toEqual([]);
  });
});

describe('discoverInputs: symbolic links', () => {
  it('finishes on a symlink loop (a/loop -> ..), reporting the link instead of following it', async () => {
    files('a/x.pdf', 'a/b/y.pdf');
    symlinkSync('..', join(root, 'a/loop'));
    symlinkSync('..', join(root, 'a/b/up'));
    for (const arg of ['a', 'a/**/*.pdf', 'a/**']) {
      const result = await discover(arg);
      expect(shown(result)).toEqual(['a/b/y.pdf', 'a/x.pdf']);
      expect(result.skipped.map((file) => file.reason)).not.toContain('file');
    }
    expect(skippedNames(await discover('a'))).toEqual({
      'a/b/up': 'symbolic link to a folder (not followed)',
      'a/loop': 'symbolic link to a folder (not followed)',
    });
  });

  it('takes a symlink to a file, reports a broken one, and searches a named symlinked folder', async () => {
    files('real/doc.pdf', 'in/plain.pdf');
    symlinkSync(join(root, 'real/doc.pdf'), join(root, 'in/link.pdf'));
    symlinkSync(join(root, 'nowhere.pdf'), join(root, 'in/broken.pdf'));
    symlinkSync(join(root, 'real'), join(root, 'real-link'));
    const result = await discover('real-link', 'in');
    expect(shown(result)).toEqual(['real-link/doc.pdf', 'in/plain.pdf']);
    expect(skippedNames(result)).toEqual({ 'in/broken.pdf': 'broken symbolic link', 'in/link.pdf': 'same file as real-link/doc.pdf' });
    expect(shown(await discover('in'))).toEqual(['in/link.pdf', 'in/plain.pdf']);

    const broken = await discover('in/broken.pdf');
    expect(broken.problems).toEqual([{ arg: 'in/broken.pdf', code: 'unreadable', message: expect.stringContaining('broken symbolic link') }]);
  });
});

describe('discoverInputs: commonBase', () => {
  it('is the deepest folder holding every input, so a/x.pdf and b/x.pdf keep apart', async () => {
    files('in/a/x.pdf', 'in/b/x.pdf', 'in/a/deep/y.pdf');
    expect((await discover('in')).commonBase).toBe(join(root, 'in'));
    expect((await discover('in/a')).commonBase).toBe(join(root, 'in/a'));
    expect((await discover('in/a/deep/y.pdf')).commonBase).toBe(join(root, 'in/a/deep'));
    expect((await discover('in/a/x.pdf', 'in/a/deep/y.pdf')).commonBase).toBe(join(root, 'in/a'));
  });

  it('is the working folder when nothing was found', async () => {
    expect((await discover('missing.pdf')).commonBase).toBe(root);
  });
});

describe('discoverInputs on the fixture corpus', () => {
  it('takes every corpus file with a supported name and reports the rest', async () => {
    const result = await discoverListed([CORPUS_DIR]);
    const expected = corpusFiles()
      .map((file) => file.name)
      .filter(hasSupportedExtension)
      .map((name) => join(CORPUS_DIR, name.normalize('NFC')));
    expect(result.inputs.map((input) => input.path).sort()).toEqual(expected.sort());
    expect(result.skipped.map((file) => file.path.slice(CORPUS_DIR.length + 1)).sort()).toEqual([
      'manifest.json',
      'mislabeled/notes.txt',
      'mislabeled/pdf-without-extension',
    ]);
  });
});

describe('discoverInputs: only inside the allowed folders', () => {
  const within = async (folders: string[], ...args: string[]): Promise<ListedDiscovery> =>
    discoverListed(args, { cwd: root, allowed: await AllowedFolders.of(folders, root) });
  const problems = (result: ListedDiscovery): [string, string][] => result.problems.map((problem) => [problem.arg, problem.code]);

  it('refuses a file, a folder or a glob outside them before listing it', async () => {
    files('in/a.pdf', 'secret/b.pdf', 'secret/c.pdf');
    const result = await within(['in'], 'in', 'secret', 'secret/b.pdf', 'secret/*.pdf', '../elsewhere/**/*.pdf');
    expect(shown(result)).toEqual(['in/a.pdf']);
    expect(problems(result)).toEqual([
      ['secret', 'path_not_allowed'],
      ['secret/b.pdf', 'path_not_allowed'],
      ['secret/*.pdf', 'path_not_allowed'],
      ['../elsewhere/**/*.pdf', 'path_not_allowed'],
    ]);
  });

  it('refuses a symbolic link out of them, named or found inside a folder, and takes one that stays inside', async () => {
    files('in/a.pdf', 'secret/b.pdf', 'in/sub/c.pdf');
    symlinkSync(join(root, 'secret/b.pdf'), join(root, 'in/link-out.pdf'));
    symlinkSync(join(root, 'in/sub/c.pdf'), join(root, 'in/link-in.pdf'));
    symlinkSync(join(root, 'secret'), join(root, 'in/folder-out'));
    const result = await within(['in'], 'in', 'in/folder-out', 'in/folder-out/b.pdf');
    expect(shown(result)).toEqual(['in/a.pdf', 'in/link-in.pdf']);
    expect(problems(result)).toEqual([
      ['in/link-out.pdf', 'path_not_allowed'],
      ['in/folder-out', 'path_not_allowed'],
      ['in/folder-out/b.pdf', 'path_not_allowed'],
    ]);
  });

  it('refuses, unsearched, a glob whose braces or .. may walk past a base inside them; no file outside is named', async () => {
    files('in/a.pdf', 'secret/b.pdf', 'top.pdf');
    const globs = ['in/{x,..}/*.pdf', 'in/{.,..}/**', 'in/.{.,}/secret/*.pdf', `in/{${root}/secret,x}/*.pdf`, 'in/*/../../secret/*.pdf', 'in/@(..)/*.pdf'];
    const result = await within(['in'], 'in/*.pdf', ...globs);
    expect(shown(result)).toEqual(['in/a.pdf']);
    expect(problems(result)).toEqual(globs.map((glob) => [glob, 'path_not_allowed']));
    expect(JSON.stringify(result)).not.toMatch(/secret\/b|top\.pdf/);
  });
});

describe('realPathOf and isInsideFolder', () => {
  it('resolves links of a path that does not exist yet through its nearest existing folder', async () => {
    mkdirSync(join(root, 'real'));
    symlinkSync(join(root, 'real'), join(root, 'link'));
    expect(await realPathOf(join(root, 'link/new/out'))).toBe(join(root, 'real/new/out'));
  });

  it('a sibling whose name starts like the folder is not inside it; a name starting with two dots is', () => {
    expect(isInsideFolder('/a/in', '/a/in')).toBe(true);
    expect(isInsideFolder('/a/in', '/a/in/x.pdf')).toBe(true);
    expect(isInsideFolder('/a/in', '/a/in/..x.pdf')).toBe(true);
    expect(isInsideFolder('/a/in', '/a/inbox/x.pdf')).toBe(false);
    expect(isInsideFolder('/a/in', '/a/x.pdf')).toBe(false);
  });
});
