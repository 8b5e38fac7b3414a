/**
 * The second line (issue 51): pdf-lib's own decoding, as it parses, is within
 * a budget, for a stream the structure check did not see. Here one sits
 * behind an object header with a comment inside it (`5 0 %c obj`), which
 * pdf-lib's parser reads and our scan for headers does not.
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readPdf } from '../../../src/files/pdf-cut.js';
import { checkPdfStructure } from '../../../src/files/pdf-structure.js';
import { InspectionBudget } from '../../../src/files/pdf/inspection-budget.js';

const MiB = 1024 * 1024;

function pdfWithHiddenStream(data: Buffer, filters: string): Buffer {
  return Buffer.concat([
    Buffer.from(
      '%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Count 1 /Kids [3 0 R] >>\nendobj\n' +
        '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>\nendobj\n' +
        `5 0 %a comment\nobj\n<< /Type /ObjStm /N 1 /First 7 /Filter ${filters} /Length ${data.length} >>\nstream\n`,
      'latin1',
    ),
    data,
    Buffer.from('\nendstream\nendobj\ntrailer\n<< /Root 1 0 R /Size 6 >>\n%%EOF\n', 'latin1'),
  ]);
}

describe("pdf-lib's parsing, behind the structure check", () => {
  const bomb = pdfWithHiddenStream(deflateSync(deflateSync(Buffer.alloc(80 * MiB))), '[/FlateDecode /FlateDecode]');

  it('is refused with pdf_too_complex when it decodes a stream the check did not see past 64 MiB', async () => {
    // The gap this line covers: the check does not see the stream.
    expect(checkPdfStructure(bomb, new InspectionBudget())).toEqual({ encrypted: false });
    const read = await readPdf(bomb, 'hidden.pdf');
    expect(read).toMatchObject({ ok: false, code: 'pdf_too_complex' });
    expect(!read.ok && read.message).toMatch(/^hidden\.pdf: checking it before its pages are cut out met a stream that inflates past 64\.0 MB/);
  });

  it("reads such a file as before when its stream is small (the decoding is pdf-lib's own, only bounded)", async () => {
    const small = pdfWithHiddenStream(deflateSync(deflateSync(Buffer.from('6 0\n<< /Small true >>\n', 'latin1'))), '[/FlateDecode /FlateDecode]');
    const read = await readPdf(small, 'small.pdf');
    expect(read.ok && read.document.getPageCount()).toBe(1);
  });
});
