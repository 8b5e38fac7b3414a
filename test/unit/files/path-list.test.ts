import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverListed } from '../../helpers/discovered.js';
import { PathListError, readPathList, splitPathList } from '../../../src/cli/path-list.js';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'docextract-list-')));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('splitPathList', () => {
  it('takes one path a line, skipping empty lines and stripping a trailing CR', () => {
    expect(splitPathList('a.pdf\r\n\nb c.pdf\n  lead.pdf\r\nlast.png', false)).toEqual(['a.pdf', 'b c.pdf', '  lead.pdf', 'last.png']);
  });

  it('with NUL separators keeps newlines, CRs and spaces inside names', () => {
    expect(splitPathList('a\nb.pdf\0 sp .pdf\0x\r.png\0\0', true)).toEqual(['a\nb.pdf', ' sp .pdf', 'x\r.png']);
  });
});

describe('readPathList', () => {
  it('reads standard input for -', async () => {
    const stdin = Readable.from([Buffer.from('one.pdf\0tw'), Buffer.from('o.pdf\0')]);
    expect(await readPathList({ from: '-', nulSeparated: true }, { cwd: root, stdin })).toEqual(['one.pdf', 'two.pdf']);
  });

  it('reads a file relative to cwd, and names an unreadable one', async () => {
    writeFileSync(join(root, 'list.txt'), 'x.pdf\n');
    const stdin = Readable.from([]);
    expect(await readPathList({ from: 'list.txt' }, { cwd: root, stdin })).toEqual(['x.pdf']);
    await expect(readPathList({ from: 'missing.txt' }, { cwd: root, stdin })).rejects.toThrow(PathListError);
    await expect(readPathList({ from: 'missing.txt' }, { cwd: root, stdin })).rejects.toThrow(/missing\.txt.*ENOENT/);
  });
});

describe('discoverInputs with listed paths', () => {
  it('takes listed names literally: a star is part of the name, and a missing one is a problem, not a glob', async () => {
    writeFileSync(join(root, 'a*b.pdf'), 'x');
    writeFileSync(join(root, 'axb.pdf'), 'x');
    const result = await discoverListed([], { cwd: root, literal: ['a*b.pdf', 'c*.pdf', 'axb.pdf', 'a*b.pdf'] });
    expect(result.inputs.map((input) => input.displayPath)).toEqual(['a*b.pdf', 'axb.pdf']);
    expect(result.problems).toEqual([{ arg: 'c*.pdf', code: 'file_not_found', message: 'no such file or folder.' }]);
  });

  it('dedupes listed paths against command-line arguments', async () => {
    writeFileSync(join(root, 'same.pdf'), 'x');
    const result = await discoverListed(['same.pdf'], { cwd: root, literal: [join(root, 'same.pdf'), './same.pdf'] });
    expect(result.inputs.map((input) => input.path)).toEqual([join(root, 'same.pdf')]);
  });
});
