import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { escapedName, lstatAnyName, notUtf8PathOf } from '../../../src/files/raw-names.js';

describe('names that are not UTF-8', () => {
  it('shows each byte that is not UTF-8 as \\xNN and keeps every valid character, however many bytes it takes', () => {
    expect(escapedName(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x70, 0x64, 0x66]))).toBe('caf\\xe9.pdf');
    expect(escapedName(Buffer.concat([Buffer.from('Zoë 東京 🚀'), Buffer.from([0xff, 0xc3]), Buffer.from('ok')]))).toBe('Zoë 東京 🚀\\xff\\xc3ok');
    // An overlong encoding of "/" and a lone continuation byte are not UTF-8 either.
    expect(escapedName(Buffer.from([0xc0, 0xaf, 0x80]))).toBe('\\xc0\\xaf\\x80');
  });

  it('finds the path on disk that a decoded path stands for, through a folder so named too, and looks at it by its bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'docextract-raw-names-'));
    const folder = Buffer.concat([Buffer.from(`${dir}/d`), Buffer.from([0xff])]);
    mkdirSync(folder);
    const file = Buffer.concat([folder, Buffer.from('/caf'), Buffer.from([0xe9]), Buffer.from('.pdf')]);
    writeFileSync(file, 'four');
    const decoded = `${dir}/d\uFFFD/caf\uFFFD.pdf`;
    expect(await notUtf8PathOf(decoded)).toEqual({ bytes: file, shown: `${dir}/d\\xff/caf\\xe9.pdf` });
    expect((await lstatAnyName(decoded)).size).toBe(4);
    // A real U+FFFD in a name is UTF-8: nothing to find; and a path that is not there is still not there.
    writeFileSync(join(dir, 'real\uFFFD.pdf'), 'x');
    expect(await notUtf8PathOf(join(dir, 'real\uFFFD.pdf'))).toBeUndefined();
    await expect(lstatAnyName(join(dir, 'gone\uFFFD.pdf'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
