import type { CrossReference } from './cross-reference.js';
import { readIndirectObjectAt } from './indirect-object.js';
import type { InspectionBudget } from './inspection-budget.js';
import { readObjectStream, type ObjectStreamMembers } from './object-stream.js';
import { buildScanIndex, type ScanIndex } from './scan-index.js';
import { asDict, asNonNegativeInteger, PdfRef, type PdfValue } from './syntax.js';

const EMPTY_SCAN: ScanIndex = { latest: new Map(), root: undefined, encrypted: false, unreadObjectStreams: false };

/** References to references are legal but rare; a long chain is a cycle. */
const MAX_REFERENCE_HOPS = 32;
/**
 * Bytes of decoded object streams kept at once. Kept by bytes, not by number of streams: a page
 * count touches two or three small ones, and a file whose pages are spread over streams of 60 MB
 * each would otherwise have one inflated again for every page (each inflation is charged to the budget too).
 */
const MAX_CACHED_DECODED_BYTES = 64 * 1024 * 1024;

/**
 * Looks objects up by number: through the cross-reference data when it is
 * right, and through a scan of the whole file (built only when needed) when it
 * is missing or points at the wrong bytes.
 */
export class PdfObjectStore {
  /** Stream data is encrypted, so object streams cannot be read. */
  streamsEncrypted = false;
  /** Set when an answer needed an object that sits inside an encrypted object stream. */
  neededEncryptedObjectStream = false;

  /** Decoded object streams by the position of their definition, oldest first (undefined: unreadable, which costs nothing to remember). */
  private readonly objectStreams = new Map<number, ObjectStreamMembers | undefined>();
  private cachedBytes = 0;
  private readonly pending = new Set<number>();
  private scanned: ScanIndex | undefined;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly xref: CrossReference | undefined,
    private readonly budget: InspectionBudget,
  ) {}

  /** The scan of every object definition, built on first use. */
  scanIndex(): ScanIndex {
    if (this.scanned === undefined) {
      // Decoding an object stream during the scan may resolve an indirect /Length, which would ask
      // for the scan again; until it is built, such lookups find nothing (the stream is then
      // delimited by its `endstream` keyword instead).
      this.scanned = EMPTY_SCAN;
      this.scanned = buildScanIndex(this.bytes, (streamNum, offset) => this.cachedMembers(streamNum, offset), this.budget);
    }
    return this.scanned;
  }

  /** Follows references until a direct value; undefined for a missing or cyclic object. */
  resolve(value: PdfValue | undefined): PdfValue | undefined {
    let current = value;
    for (let hop = 0; current instanceof PdfRef; hop++) {
      if (hop >= MAX_REFERENCE_HOPS) return undefined;
      current = this.getObject(current.num);
    }
    return current;
  }

  getObject(num: number): PdfValue | undefined {
    if (this.pending.has(num)) return undefined; // e.g. an object stream whose /Length points into itself
    this.budget.checkTime();
    this.pending.add(num);
    try {
      return this.lookUp(num);
    } finally {
      this.pending.delete(num);
    }
  }

  private lookUp(num: number): PdfValue | undefined {
    const entry = this.xref?.entries.get(num);
    if (entry?.kind === 'free') return undefined;
    if (entry?.kind === 'offset') {
      const object = readIndirectObjectAt(this.bytes, entry.offset);
      if (object?.num === num) return object.value;
    } else if (entry?.kind === 'compressed') {
      const value = this.memberOf(entry.streamNum, num);
      if (value !== undefined || this.neededEncryptedObjectStream) return value;
    }
    // Not in the xref, or the xref is wrong about it: trust the bytes instead.
    const found = this.scanIndex().latest.get(num);
    if (found === undefined) return undefined;
    if (found.location.kind === 'compressed') return this.memberOf(found.location.streamNum, num);
    return readIndirectObjectAt(this.bytes, found.location.offset)?.value;
  }

  private memberOf(streamNum: number, num: number): PdfValue | undefined {
    if (this.streamsEncrypted) {
      this.neededEncryptedObjectStream = true;
      return undefined;
    }
    return this.cachedMembers(streamNum, this.offsetOf(streamNum))?.get(num);
  }

  /** The stream defined at `offset`, decoded once and kept while it fits in MAX_CACHED_DECODED_BYTES beside the others (the oldest go first). */
  private cachedMembers(streamNum: number, offset: number | undefined): ObjectStreamMembers | undefined {
    // Nothing is kept while streams count as encrypted: that changes once the /Encrypt dictionary is read.
    if (offset === undefined || this.streamsEncrypted) return undefined;
    if (this.objectStreams.has(offset)) return this.objectStreams.get(offset);
    const members = this.membersAt(streamNum, offset);
    const size = members?.byteLength ?? 0;
    if (size > MAX_CACHED_DECODED_BYTES) return members;
    for (const [oldest, kept] of this.objectStreams) {
      if (this.cachedBytes + size <= MAX_CACHED_DECODED_BYTES) break;
      this.objectStreams.delete(oldest);
      this.cachedBytes -= kept?.byteLength ?? 0;
    }
    this.objectStreams.set(offset, members);
    this.cachedBytes += size;
    return members;
  }

  private offsetOf(streamNum: number): number | undefined {
    const entry = this.xref?.entries.get(streamNum);
    if (entry?.kind === 'offset' && readIndirectObjectAt(this.bytes, entry.offset)?.num === streamNum) return entry.offset;
    const found = this.scanIndex().latest.get(streamNum);
    return found?.location.kind === 'offset' ? found.location.offset : undefined;
  }

  private membersAt(streamNum: number, offset: number | undefined): ObjectStreamMembers | undefined {
    if (this.streamsEncrypted || offset === undefined) return undefined;
    const object = readIndirectObjectAt(this.bytes, offset);
    if (object?.num !== streamNum) return undefined;
    return readObjectStream(this.bytes, object, (length) => this.resolve(length), this.budget);
  }
}

/**
 * Strings and streams of an encrypted file are ciphertext; numbers, names and
 * dictionaries are not. Since PDF 1.5 (V 4/5) a file may leave streams in the
 * clear with the /Identity crypt filter, which is also the default for /StmF.
 */
export function streamsAreEncrypted(store: PdfObjectStore, encrypt: PdfValue | undefined): boolean {
  if (encrypt === undefined || encrypt === null) return false;
  const dict = asDict(store.resolve(encrypt));
  if (dict === undefined) return true;
  const version = asNonNegativeInteger(dict.get('V')) ?? 0;
  if (version < 4) return true;
  const streamFilter = dict.nameOf('StmF') ?? 'Identity';
  return streamFilter !== 'Identity';
}
