// Bench inputs made at bench time in bench/tmp: every file has distinct bytes, because
// results (and the emulator's upload counter) are keyed by sha256.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 as zlibCrc32, deflateSync } from 'node:zlib';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// A 1x1 greyscale pixel: filter byte 0, value 0xf0.
const IDAT = deflateSync(Buffer.from([0, 0xf0]));
const IHDR = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0]);

/** A valid 1x1 PNG (about 90 bytes) whose tEXt chunk makes its bytes unique. */
export function tinyPng(label) {
  return Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', IHDR),
    pngChunk('tEXt', Buffer.from(`Comment\0${label}`, 'latin1')),
    pngChunk('IDAT', IDAT),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function pngChunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length, 0);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlibCrc32(body) >>> 0, 0);
  return Buffer.concat([length, body, crc]);
}

/** `count` tiny PNGs named <prefix>-00001.png... in `dir`, spread over subfolders of `perFolder` files. */
export function writeTinyPngs(dir, count, { prefix = 'img', perFolder = 0 } = {}) {
  const width = String(count).length;
  const paths = [];
  for (let i = 0; i < count; i++) {
    const folder = perFolder > 0 ? join(dir, `d${String(Math.floor(i / perFolder)).padStart(3, '0')}`) : dir;
    if (perFolder === 0 ? i === 0 : i % perFolder === 0) mkdirSync(folder, { recursive: true });
    const path = join(folder, `${prefix}-${String(i).padStart(width, '0')}.png`);
    writeFileSync(path, tinyPng(`${prefix} ${i} ${dir}`));
    paths.push(path);
  }
  return paths;
}

/**
 * The mixed batch of the schedule run: `small` images and short PDFs (1 to 3 pages, alternating) and
 * one PDF per entry of `longPages`. Returns [{ path, pages }].
 */
export async function writeMixedBatch(dir, { small, longPages }) {
  const { makeTextPdf } = await import('../../fixtures/pdf-builders.js');
  mkdirSync(dir, { recursive: true });
  const files = [];
  for (let i = 0; i < small; i++) {
    if (i % 2 === 0) {
      const path = join(dir, `small-${String(i).padStart(3, '0')}.png`);
      writeFileSync(path, tinyPng(`schedule small ${i}`));
      files.push({ path, pages: 1 });
    } else {
      const pages = 1 + (i % 3);
      const path = join(dir, `small-${String(i).padStart(3, '0')}.pdf`);
      writeFileSync(path, await makeTextPdf(pages, { title: `bench short document ${i}` }));
      files.push({ path, pages });
    }
  }
  for (const [i, pages] of longPages.entries()) {
    const path = join(dir, `long-${String(i).padStart(2, '0')}-${pages}p.pdf`);
    writeFileSync(path, await makeTextPdf(pages, { title: `bench long document ${i}` }));
    files.push({ path, pages });
  }
  return files;
}
