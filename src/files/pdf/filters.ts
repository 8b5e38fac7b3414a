import { constants, inflateSync } from 'node:zlib';
import { isWhitespace } from './syntax.js';

/**
 * What one filter of a chain made of its input: the output, and whether the
 * input ended as the filter's format says it must (deflate's final block, an
 * EOD marker). Output past `limit` is 'too_large' (the decoder stopped
 * there); data the format cannot hold is 'damaged'.
 */
type FilterOutput = { data: Uint8Array; complete: boolean } | 'too_large' | 'damaged';

/** A decoder that stops once its output would pass `limit` bytes. */
type Decoder = (input: Uint8Array, limit: number) => FilterOutput;

/**
 * The filters docextract decodes, by the names a PDF may give them (the
 * abbreviations are those of inline images, which some writers use on streams
 * too). LZWDecode is left out: no writer puts it on an object stream, and a
 * stream that needs it is one docextract cannot account for.
 */
export const DECODERS: ReadonlyMap<string, Decoder> = new Map<string, Decoder>([
  ['FlateDecode', inflate],
  ['Fl', inflate],
  ['ASCIIHexDecode', asciiHex],
  ['AHx', asciiHex],
  ['ASCII85Decode', ascii85],
  ['A85', ascii85],
  ['RunLengthDecode', runLength],
  ['RL', runLength],
]);

/** zlib, asked for at most `limit + 1` bytes, so that a bomb stops at the limit and is never in memory whole. */
function inflate(input: Uint8Array, limit: number): FilterOutput {
  try {
    return { data: inflateSync(input, { maxOutputLength: limit + 1 }), complete: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ERR_BUFFER_TOO_LARGE') return 'too_large';
    if (code !== 'Z_BUF_ERROR') return 'damaged';
  }
  // Cut short: some writers leave a truncated final block; take what decodes.
  try {
    return { data: inflateSync(input, { maxOutputLength: limit + 1, finishFlush: constants.Z_SYNC_FLUSH }), complete: false };
  } catch (error) {
    return (error as NodeJS.ErrnoException | undefined)?.code === 'ERR_BUFFER_TOO_LARGE' ? 'too_large' : 'damaged';
  }
}

/** Two hex digits a byte, whitespace ignored, up to `>` (a lone last digit is followed by 0). */
function asciiHex(input: Uint8Array, limit: number): FilterOutput {
  const out = new Uint8Array(Math.min(limit + 1, Math.ceil(input.length / 2)));
  let length = 0;
  let high: number | undefined;
  for (const c of input) {
    if (c === 0x3e) return { data: finishHex(out, length, high), complete: true };
    if (isWhitespace(c)) continue;
    const digit = hexValue(c);
    if (digit === undefined) return 'damaged';
    if (high === undefined) high = digit;
    else {
      if (length >= limit) return 'too_large';
      out[length++] = high * 16 + digit;
      high = undefined;
    }
  }
  return { data: finishHex(out, length, high), complete: false };
}

function finishHex(out: Uint8Array, length: number, high: number | undefined): Uint8Array {
  if (high === undefined) return out.subarray(0, length);
  const data = new Uint8Array(length + 1);
  data.set(out.subarray(0, length));
  data[length] = high * 16;
  return data;
}

function hexValue(c: number): number | undefined {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return undefined;
}

/** Five characters `!`..`u` a group of four bytes, `z` four zeros (so the output may be four times the input), up to `~>`. */
function ascii85(input: Uint8Array, limit: number): FilterOutput {
  const chunks: Uint8Array[] = [];
  let out = new Uint8Array(Math.min(limit + 4, 64 * 1024));
  let length = 0;
  let total = 0;
  const group: number[] = [];
  const emit = (bytes: number[]): boolean => {
    for (const byte of bytes) {
      if (total >= limit) return false;
      if (length === out.length) {
        chunks.push(out);
        out = new Uint8Array(Math.min(limit + 4 - total, 64 * 1024));
        length = 0;
      }
      out[length++] = byte;
      total++;
    }
    return true;
  };
  const done = (complete: boolean): FilterOutput => {
    chunks.push(out.subarray(0, length));
    return { data: chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks), complete };
  };
  for (const c of input) {
    if (isWhitespace(c)) continue;
    if (c === 0x7e) {
      if (group.length === 1) return 'damaged';
      if (group.length > 0 && !emit(ascii85Group(group).slice(0, group.length - 1))) return 'too_large';
      return done(true);
    }
    if (c === 0x7a && group.length === 0) {
      if (!emit([0, 0, 0, 0])) return 'too_large';
      continue;
    }
    if (c < 0x21 || c > 0x75) return 'damaged';
    group.push(c - 0x21);
    if (group.length === 5) {
      if (!emit(ascii85Group(group))) return 'too_large';
      group.length = 0;
    }
  }
  return done(false);
}

/** A group of 2 to 5 digits, padded with `u` (84) as the format says, as four bytes. */
function ascii85Group(digits: readonly number[]): number[] {
  let value = 0;
  for (let i = 0; i < 5; i++) value = value * 85 + (digits[i] ?? 84);
  return [(value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];
}

/** A length byte, then that many bytes plus one as they are (0..127) or one byte repeated 257 − length times (129..255), up to 128. */
function runLength(input: Uint8Array, limit: number): FilterOutput {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let pos = 0;
  while (pos < input.length) {
    const length = input[pos++] as number;
    if (length === 128) return { data: Buffer.concat(chunks), complete: true };
    const run = length < 128 ? input.subarray(pos, pos + length + 1) : new Uint8Array(257 - length).fill(input[pos] ?? 0);
    pos += length < 128 ? length + 1 : 1;
    total += run.length;
    if (total > limit) return 'too_large';
    chunks.push(run);
  }
  return { data: Buffer.concat(chunks), complete: false };
}
