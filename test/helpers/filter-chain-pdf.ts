import { once } from 'node:events';
import { constants, createDeflate, deflateSync } from 'node:zlib';

/**
 * The second round's hostile PDF, built at test time: its one object stream
 * is encoded with a chain of filters (`/Filter [/FlateDecode /FlateDecode]`:
 * a few KB on disk, `inflatedBytes` inside, blank padding after the members).
 * `treeInStream`: the catalog, the page tree and every page sit in that stream
 * (no cross-reference table), so a page count must decode it; otherwise they
 * are plain objects listed in a table, /Count is trusted, and the stream holds
 * one object nobody asks for, which pdf-lib's parser decodes all the same.
 */
export interface FilterChainPdfOptions {
  pages: number;
  /** The stream's /Filter, first applied first when decoding: names docextract does not know are written as they are. */
  filters: string[];
  /** What the stream's data inflates to, padding included. */
  inflatedBytes: number;
  treeInStream: boolean;
  /** Written as the stream's /DecodeParms, as it is (e.g. `[<< /Predictor 12 /Columns 4 >> null]`). */
  decodeParms?: string;
  /** Drop this many bytes off the end of the encoded data (a stream cut short). */
  cutShort?: number;
}

const built = new Map<string, Buffer>();

/** Built once per options in a process: 1 GiB of padding takes a few CPU-seconds to deflate. */
export async function filterChainPdf(options: FilterChainPdfOptions): Promise<Buffer> {
  const key = JSON.stringify(options);
  let bytes = built.get(key);
  if (bytes === undefined) {
    bytes = await buildFilterChainPdf(options);
    built.set(key, bytes);
  }
  return bytes;
}

async function buildFilterChainPdf({ pages, filters, inflatedBytes, treeInStream, decodeParms, cutShort = 0 }: FilterChainPdfOptions): Promise<Buffer> {
  const pageNums = Array.from({ length: pages }, (_, index) => 3 + index);
  const streamNum = 3 + pages;
  const catalog = '<< /Type /Catalog /Pages 2 0 R >>';
  const tree = `<< /Type /Pages /Count ${pages} /Kids [${pageNums.map((num) => `${num} 0 R`).join(' ')}] >>`;
  const page = (num: number): string => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Hostile ${num} >>`;
  const plain: [number, string][] = treeInStream ? [] : [[1, catalog], [2, tree], ...pageNums.map((num): [number, string] => [num, page(num)])];
  const members: [number, string][] = treeInStream
    ? [[1, catalog], [2, tree], ...pageNums.map((num): [number, string] => [num, page(num)])]
    : [[streamNum + 1, '<< /Unused true >>']];

  let at = 0;
  const offsets = members.map(([, body]) => {
    const offset = at;
    at += body.length + 1;
    return offset;
  });
  const header = `${members.map(([num], index) => `${num} ${offsets[index]}`).join(' ')}\n`;
  const objects = Buffer.from(header + members.map(([, body]) => `${body}\n`).join(''), 'latin1');
  let data = await deflatePadded(objects, Math.max(0, inflatedBytes - objects.length), filters.at(-1) === 'FlateDecode');
  for (const filter of filters.slice(0, -1).reverse()) data = encode(filter, data);
  data = data.subarray(0, data.length - cutShort);

  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const xref: number[] = [];
  let length = parts[0]!.length;
  const push = (part: Buffer): void => {
    parts.push(part);
    length += part.length;
  };
  for (const [num, body] of plain) {
    xref[num] = length;
    push(Buffer.from(`${num} 0 obj\n${body}\nendobj\n`, 'latin1'));
  }
  xref[streamNum] = length;
  const filterList = `[${filters.map((name) => `/${name}`).join(' ')}]`;
  const parms = decodeParms === undefined ? '' : ` /DecodeParms ${decodeParms}`;
  push(
    Buffer.from(
      `${streamNum} 0 obj\n<< /Type /ObjStm /N ${members.length} /First ${header.length} /Filter ${filterList}${parms} /Length ${data.length} >>\nstream\n`,
      'latin1',
    ),
  );
  push(data);
  push(Buffer.from('\nendstream\nendobj\n', 'latin1'));
  const size = streamNum + 1;
  if (treeInStream) {
    push(Buffer.from(`trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n0\n%%EOF\n`, 'latin1'));
  } else {
    const start = length;
    const rows = Array.from({ length: size }, (_, num) =>
      xref[num] === undefined ? '0000000000 65535 f \n' : `${String(xref[num]).padStart(10, '0')} 00000 n \n`,
    );
    push(Buffer.from(`xref\n0 ${size}\n${rows.join('')}trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${start}\n%%EOF\n`, 'latin1'));
  }
  return Buffer.concat(parts);
}

/**
 * `objects` then `padding` spaces, deflated when `deflate` (streamed: 1 GiB of padding is never in memory), else as they are.
 * Run-length matching only: one byte repeated squeezes about 1000:1 (deflate's most) at a fraction of level 9's cost.
 */
async function deflatePadded(objects: Buffer, padding: number, deflate: boolean): Promise<Buffer> {
  if (!deflate) return Buffer.concat([objects, Buffer.alloc(padding, 0x20)]);
  const deflater = createDeflate({ level: 9, strategy: constants.Z_RLE });
  const out: Buffer[] = [];
  deflater.on('data', (chunk: Buffer) => out.push(chunk));
  const chunk = Buffer.alloc(4 * 1024 * 1024, 0x20);
  deflater.write(objects);
  for (let left = padding; left > 0; left -= chunk.length) {
    if (!deflater.write(left >= chunk.length ? chunk : chunk.subarray(0, left))) await once(deflater, 'drain');
  }
  deflater.end();
  await once(deflater, 'end');
  return Buffer.concat(out);
}

function encode(filter: string, data: Buffer): Buffer {
  if (filter === 'FlateDecode') return deflateSync(data, { level: 9 });
  if (filter === 'ASCIIHexDecode') return Buffer.from(`${data.toString('hex')}>`, 'latin1');
  if (filter === 'ASCII85Decode') return ascii85(data);
  return data; // a filter docextract does not decode: its data does not matter
}

function ascii85(data: Buffer): Buffer {
  let text = '';
  for (let at = 0; at < data.length; at += 4) {
    const group = data.subarray(at, at + 4);
    const padded = Buffer.concat([group, Buffer.alloc(4 - group.length)]);
    let value = padded.readUInt32BE(0);
    if (value === 0 && group.length === 4) {
      text += 'z';
      continue;
    }
    const digits: string[] = [];
    for (let i = 0; i < 5; i++) {
      digits.unshift(String.fromCharCode(33 + (value % 85)));
      value = Math.floor(value / 85);
    }
    text += digits.slice(0, group.length + 1).join('');
  }
  return Buffer.from(`${text}~>`, 'latin1');
}
