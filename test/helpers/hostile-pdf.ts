import { constants, deflateSync } from 'node:zlib';

/**
 * The security review's hostile PDF, built at test time: no cross-reference
 * table and no trailer (so a reader must scan the file), and its pages spread
 * round-robin over object streams that each inflate to `inflatedBytesPerStream`
 * (blank padding after the members, which deflate squeezes about 1000:1). A
 * reader that keeps only a few decoded streams inflates one again for every page.
 */
export interface HostilePdfOptions {
  pages: number;
  /** Object streams the pages are spread over. */
  streams: number;
  /** What each object stream inflates to, padding included. */
  inflatedBytesPerStream: number;
}

/**
 * Built once per options in a test file: deflating 5 × 56 MB costs about 0.2 CPU-s (2 at level 9's full search), and a file
 * that writes the same hostile PDF in every test paid it each time. The bytes are shared: callers
 * write or read them, never change them.
 */
const built = new Map<string, Buffer>();

export function hostilePdf(options: HostilePdfOptions): Buffer {
  const key = `${options.pages}/${options.streams}/${options.inflatedBytesPerStream}`;
  let bytes = built.get(key);
  if (bytes === undefined) {
    bytes = buildHostilePdf(options);
    built.set(key, bytes);
  }
  return bytes;
}

function buildHostilePdf({ pages, streams, inflatedBytesPerStream }: HostilePdfOptions): Buffer {
  // 1: catalog, 2: page tree, 3 … 2 + pages: the pages, then the object streams.
  const pageNums = Array.from({ length: pages }, (_, index) => 3 + index);
  const parts: Buffer[] = [
    Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'),
    Buffer.from('1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n', 'latin1'),
    Buffer.from(`2 0 obj\n<< /Type /Pages /Count ${pages} /Kids [${pageNums.map((num) => `${num} 0 R`).join(' ')}] >>\nendobj\n`, 'latin1'),
  ];
  for (let stream = 0; stream < streams; stream++) {
    const members = pageNums.filter((_, index) => index % streams === stream);
    const bodies = members.map((num) => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Hostile ${num} >>\n`);
    const offsets: number[] = [];
    let at = 0;
    for (const body of bodies) {
      offsets.push(at);
      at += body.length;
    }
    const header = `${members.map((num, index) => `${num} ${offsets[index]}`).join(' ')}\n`;
    const objects = Buffer.from(header + bodies.join(''), 'latin1');
    const padding = Buffer.alloc(Math.max(0, inflatedBytesPerStream - objects.length), 0x20);
    // Run-length matching only: the padding is one byte repeated, which it squeezes exactly as far as level 9's
    // full search does (about 1000:1, deflate's most), in a sixth of the time.
    const data = deflateSync(Buffer.concat([objects, padding]), { level: 9, strategy: constants.Z_RLE });
    const num = 3 + pages + stream;
    parts.push(
      Buffer.from(
        `${num} 0 obj\n<< /Type /ObjStm /N ${members.length} /First ${header.length} /Filter /FlateDecode /Length ${data.length} >>\nstream\n`,
        'latin1',
      ),
      data,
      Buffer.from('\nendstream\nendobj\n', 'latin1'),
    );
  }
  parts.push(Buffer.from('%%EOF\n', 'latin1'));
  return Buffer.concat(parts);
}
