// 9. Cutting pages (--pages, and parts past the service's limits) with pdf-lib: the time and peak
// memory to cut a 150-page 10 MB PDF, and 1,000 single-page cuts; each in a process of its own.
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';
import { root, scratch } from './context.js';

/** @param {import('./report.js').Section} section */
export async function benchCut(section) {
  const dir = scratch('cut');
  const big = join(dir, 'scan-150.pdf');
  // 150 pages of ~66 KB of incompressible image each: just under 10 MB, the most one upload holds.
  writeFileSync(big, await makePdf(150, 66_000));
  const twelve = join(dir, 'invoice-12.pdf');
  writeFileSync(twelve, await makePdf(12, 20_000));

  const whole = measure(['whole', big]);
  section.add('150-page 10 MB PDF: plan parts and cut', whole.ms, {
    unit: 'ms',
    atMost: 5_000,
    text: `${Math.round(whole.ms)} ms: ${whole.cuts} part${whole.cuts === 1 ? '' : 's'}, ${(whole.bytes / 1024 / 1024).toFixed(1)} MB in all`,
  });
  section.add('150-page 10 MB PDF: peak memory', whole.maxRssMiB, { unit: 'MiB', atMost: 400 });
  const single = measure(['pages', twelve, '1000']);
  section.add('1,000 single-page cuts (12-page PDF)', single.ms / 1000, {
    unit: 's',
    digits: 1,
    atMost: 60,
    text: `${(single.ms / 1000).toFixed(1)} s (${(single.ms / single.cuts).toFixed(1)} ms per cut)`,
  });
  section.add('1,000 single-page cuts: peak memory', single.maxRssMiB, { unit: 'MiB', atMost: 300 });
  section.details = { whole, single };
}

function measure(args) {
  const out = execFileSync(process.execPath, [join(root, 'scripts/bench/cut-child.js'), ...args], { encoding: 'utf8', maxBuffer: 1024 * 1024 });
  return JSON.parse(out.trim().split('\n').at(-1));
}

async function makePdf(pages, imageBytes) {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let index = 1; index <= pages; index += 1) {
    const page = document.addPage([595, 842]);
    page.drawText(`Page ${index} of ${pages}`, { x: 50, y: 780, size: 14, font });
    const image = document.context.stream(randomBytes(imageBytes), {
      Type: 'XObject',
      Subtype: 'Image',
      Width: imageBytes / 100,
      Height: 100,
      ColorSpace: 'DeviceGray',
      BitsPerComponent: 8,
    });
    page.node.setXObject(PDFName.of(`Scan${index}`), document.context.register(image));
  }
  return document.save();
}
