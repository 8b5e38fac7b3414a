import { once } from 'node:events';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createDeflateRaw } from 'node:zlib';

/** What a zip without ZIP64 records: sizes and offsets in 32 bits, at most 65,535 entries. */
const ZIP32_LIMIT = 0xffff_ffff;
/** Bit 3: sizes and CRC follow the data (it is streamed); bit 11: names are UTF-8. */
const FLAGS = 0x0008 | 0x0800;
const DEFLATE = 8;
/** 1980-01-01 00:00, the first DOS date: every entry gets it, so the same tables give the same bytes. */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

interface Entry {
  name: Buffer;
  offset: number;
  crc: number;
  compressed: number;
  size: number;
}

/**
 * A zip written as a stream (what an xlsx is): each entry deflated as its
 * text comes, waiting for `out` when it asks to, so no entry is held whole
 * in memory. Node has deflate but no zip writer, and the package that had
 * one (exceljs) installed 23 MB for it (issue 53). Without ZIP64: a workbook
 * past 4 GiB is refused, never written broken.
 */
export class ZipWriter {
  private readonly entries: Entry[] = [];
  private written = 0;

  constructor(private readonly out: Writable) {}

  /** Adds the file `name` with the text `parts` make, deflated. */
  async add(name: string, parts: AsyncIterable<string> | Iterable<string>): Promise<void> {
    const entry: Entry = { name: Buffer.from(name, 'utf8'), offset: this.written, crc: 0, compressed: 0, size: 0 };
    await this.put(localHeader(entry));
    const measured = async function* (): AsyncGenerator<Buffer> {
      for await (const part of parts) {
        const bytes = Buffer.from(part, 'utf8');
        entry.crc = crc32(bytes, entry.crc);
        entry.size += bytes.length;
        yield bytes;
      }
    };
    await pipeline(Readable.from(measured()), createDeflateRaw(), async (deflated: AsyncIterable<Buffer>) => {
      for await (const chunk of deflated) {
        entry.compressed += chunk.length;
        await this.put(chunk);
      }
    });
    if (entry.size > ZIP32_LIMIT || this.written > ZIP32_LIMIT) throw new RangeError(`${name} is larger than a zip without ZIP64 holds (4 GiB)`);
    await this.put(dataDescriptor(entry));
    this.entries.push(entry);
  }

  /** Writes the central directory; the zip is complete once `out` has ended. */
  async finish(): Promise<void> {
    if (this.entries.length > 0xffff) throw new RangeError('more entries than a zip without ZIP64 holds (65,535)');
    const start = this.written;
    for (const entry of this.entries) await this.put(centralHeader(entry));
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.entries.length, 8);
    end.writeUInt16LE(this.entries.length, 10);
    end.writeUInt32LE(this.written - start, 12);
    end.writeUInt32LE(start, 16);
    await this.put(end);
  }

  private async put(bytes: Buffer): Promise<void> {
    this.written += bytes.length;
    if (!this.out.write(bytes)) await once(this.out, 'drain');
  }
}

function localHeader(entry: Entry): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4); // version needed: 2.0, deflate
  header.writeUInt16LE(FLAGS, 6);
  header.writeUInt16LE(DEFLATE, 8);
  header.writeUInt16LE(DOS_TIME, 10);
  header.writeUInt16LE(DOS_DATE, 12);
  // CRC and sizes (14-25) stay 0: the data descriptor after the data carries them.
  header.writeUInt16LE(entry.name.length, 26);
  return Buffer.concat([header, entry.name]);
}

function dataDescriptor(entry: Entry): Buffer {
  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(entry.crc, 4);
  descriptor.writeUInt32LE(entry.compressed, 8);
  descriptor.writeUInt32LE(entry.size, 12);
  return descriptor;
}

function centralHeader(entry: Entry): Buffer {
  const header = Buffer.alloc(46);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE(20, 4); // made by: 2.0
  header.writeUInt16LE(20, 6); // needed: 2.0
  header.writeUInt16LE(FLAGS, 8);
  header.writeUInt16LE(DEFLATE, 10);
  header.writeUInt16LE(DOS_TIME, 12);
  header.writeUInt16LE(DOS_DATE, 14);
  header.writeUInt32LE(entry.crc, 16);
  header.writeUInt32LE(entry.compressed, 20);
  header.writeUInt32LE(entry.size, 24);
  header.writeUInt16LE(entry.name.length, 28);
  // Extra field, comment, disk, attributes (30-41): none.
  header.writeUInt32LE(entry.offset, 42);
  return Buffer.concat([header, entry.name]);
}
