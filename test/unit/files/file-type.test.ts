import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contentTypeFor, detectFileType } from '../../../src/files/file-type.js';
import { corpusFiles, corpusPath } from './corpus.js';

const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'latin1'));

describe('detectFileType', () => {
  it.each(corpusFiles().map((file) => [file.name, file.type] as const))('judges %s by its content: %s', (name, type) => {
    expect(detectFileType(new Uint8Array(readFileSync(corpusPath(name))).subarray(0, 1024))).toBe(type ?? undefined);
  });

  it('recognises the three signatures', () => {
    expect(detectFileType(bytes('%PDF-1.4\n'))).toBe('pdf');
    expect(detectFileType(Uint8Array.of(0xff, 0xd8, 0xff, 0xe0))).toBe('jpeg');
    expect(detectFileType(Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0))).toBe('png');
  });

  it('finds %PDF- after junk within the first 1024 bytes, and not beyond', () => {
    expect(detectFileType(bytes(`${'x'.repeat(1000)}%PDF-1.7`))).toBe('pdf');
    expect(detectFileType(bytes(`${'x'.repeat(1020)}%PDF-1.7`))).toBeUndefined();
  });

  it('rejects near misses: a cut signature, text, nothing', () => {
    expect(detectFileType(Uint8Array.of(0x89, 0x50, 0x4e, 0x47))).toBeUndefined();
    expect(detectFileType(Uint8Array.of(0xff, 0xd8))).toBeUndefined();
    expect(detectFileType(bytes('%PDF'))).toBeUndefined();
    expect(detectFileType(bytes('GIF89a'))).toBeUndefined();
    expect(detectFileType(new Uint8Array(0))).toBeUndefined();
  });
});

describe('contentTypeFor', () => {
  it('maps each type to its media type', () => {
    expect(contentTypeFor('pdf')).toBe('application/pdf');
    expect(contentTypeFor('jpeg')).toBe('image/jpeg');
    expect(contentTypeFor('png')).toBe('image/png');
  });
});
