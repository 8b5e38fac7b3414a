/**
 * Just enough of the PDF object syntax (ISO 32000 §7.2–7.3) to read
 * dictionaries, numbers, names and references. String contents are skipped,
 * never decoded: in an encrypted file they are ciphertext, and a page count
 * never needs them.
 *
 * Every loop advances the position by at least one byte and nesting is capped,
 * so parsing any input ends in time linear in its length.
 */

export class PdfName {
  constructor(readonly name: string) {}
}

export class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}

export class PdfDict {
  constructor(readonly entries: Map<string, PdfValue>) {}

  get(key: string): PdfValue | undefined {
    return this.entries.get(key);
  }

  /** The name stored under `key`, e.g. `Pages` for `/Type /Pages`. */
  nameOf(key: string): string | undefined {
    const value = this.entries.get(key);
    return value instanceof PdfName ? value.name : undefined;
  }
}

/** A literal or hex string; its bytes are not kept. */
class PdfString {}

/** A bare word such as `obj`, `stream`, `endobj`, `xref`, `trailer`. */
class PdfKeyword {
  constructor(readonly word: string) {}
}

export type PdfValue = number | boolean | null | PdfName | PdfRef | PdfDict | PdfString | PdfKeyword | PdfValue[];

const MAX_NESTING = 64;

const enum Char {
  Nul = 0x00,
  Tab = 0x09,
  LineFeed = 0x0a,
  FormFeed = 0x0c,
  Return = 0x0d,
  Space = 0x20,
  Hash = 0x23,
  Percent = 0x25,
  ParenOpen = 0x28,
  ParenClose = 0x29,
  Plus = 0x2b,
  Minus = 0x2d,
  Dot = 0x2e,
  Slash = 0x2f,
  Zero = 0x30,
  Nine = 0x39,
  Less = 0x3c,
  Greater = 0x3e,
  BracketOpen = 0x5b,
  Backslash = 0x5c,
  BracketClose = 0x5d,
  BraceOpen = 0x7b,
  BraceClose = 0x7d,
}

export function isWhitespace(c: number | undefined): boolean {
  return c === Char.Space || c === Char.LineFeed || c === Char.Return || c === Char.Tab || c === Char.FormFeed || c === Char.Nul;
}

function isDelimiter(c: number | undefined): boolean {
  return (
    c === Char.ParenOpen ||
    c === Char.ParenClose ||
    c === Char.Less ||
    c === Char.Greater ||
    c === Char.BracketOpen ||
    c === Char.BracketClose ||
    c === Char.BraceOpen ||
    c === Char.BraceClose ||
    c === Char.Slash ||
    c === Char.Percent
  );
}

export function isDigit(c: number | undefined): c is number {
  return c !== undefined && c >= Char.Zero && c <= Char.Nine;
}

/** True when position `pos` ends a token (end of data, whitespace or a delimiter). */
export function isTokenEnd(bytes: Uint8Array, pos: number): boolean {
  const c = bytes[pos];
  return c === undefined || isWhitespace(c) || isDelimiter(c);
}

type Token =
  | { kind: 'number'; value: number; isInteger: boolean }
  | { kind: 'value'; value: PdfValue }
  | { kind: 'dictOpen' | 'dictClose' | 'arrayOpen' | 'arrayClose' | 'end' };

/** Reads PDF values from `bytes`, starting at `pos`. */
export class PdfSyntaxReader {
  constructor(
    private readonly bytes: Uint8Array,
    public pos: number,
  ) {}

  skipWhitespaceAndComments(): void {
    const { bytes } = this;
    while (this.pos < bytes.length) {
      const c = bytes[this.pos];
      if (isWhitespace(c)) {
        this.pos++;
      } else if (c === Char.Percent) {
        while (this.pos < bytes.length && bytes[this.pos] !== Char.LineFeed && bytes[this.pos] !== Char.Return) this.pos++;
      } else {
        return;
      }
    }
  }

  /** Reads a non-negative integer token, or returns undefined and leaves the position unchanged. */
  readUnsignedInteger(): number | undefined {
    const start = this.pos;
    this.skipWhitespaceAndComments();
    const token = this.readToken();
    if (token.kind === 'number' && token.isInteger && token.value >= 0) return token.value;
    this.pos = start;
    return undefined;
  }

  /** Reads `word` as the next keyword, or returns false and leaves the position unchanged. */
  readKeyword(word: string): boolean {
    const start = this.pos;
    const value = this.readValue();
    if (value instanceof PdfKeyword && value.word === word) return true;
    this.pos = start;
    return false;
  }

  /** Reads one complete value; undefined at the end of data or on a stray closing token. */
  readValue(depth = 0): PdfValue | undefined {
    this.skipWhitespaceAndComments();
    const token = this.readToken();
    switch (token.kind) {
      case 'number':
        return token.isInteger && token.value >= 0 ? this.referenceOrNumber(token.value) : token.value;
      case 'value':
        return token.value;
      case 'dictOpen':
        return depth >= MAX_NESTING ? undefined : this.readDictBody(depth + 1);
      case 'arrayOpen':
        return depth >= MAX_NESTING ? undefined : this.readArrayBody(depth + 1);
      default:
        return undefined;
    }
  }

  /** `12 0 R` is a reference; otherwise the integer stands alone and the position is restored after it. */
  private referenceOrNumber(num: number): PdfValue {
    const afterNumber = this.pos;
    const gen = this.readUnsignedInteger();
    if (gen !== undefined) {
      this.skipWhitespaceAndComments();
      if (this.bytes[this.pos] === 0x52 /* R */ && isTokenEnd(this.bytes, this.pos + 1)) {
        this.pos++;
        return new PdfRef(num, gen);
      }
    }
    this.pos = afterNumber;
    return num;
  }

  private readDictBody(depth: number): PdfDict | undefined {
    const entries = new Map<string, PdfValue>();
    for (;;) {
      this.skipWhitespaceAndComments();
      const before = this.pos;
      const token = this.readToken();
      if (token.kind === 'dictClose') return new PdfDict(entries);
      if (token.kind === 'end') return undefined;
      if (token.kind !== 'value' || !(token.value instanceof PdfName)) {
        // A malformed key: skip it and carry on, as lenient readers do.
        if (this.pos === before) this.pos++;
        continue;
      }
      const value = this.readValue(depth);
      if (value === undefined) return undefined;
      entries.set(token.value.name, value);
    }
  }

  private readArrayBody(depth: number): PdfValue[] | undefined {
    const items: PdfValue[] = [];
    for (;;) {
      this.skipWhitespaceAndComments();
      if (this.bytes[this.pos] === Char.BracketClose) {
        this.pos++;
        return items;
      }
      const before = this.pos;
      const value = this.readValue(depth);
      if (value === undefined) {
        if (this.pos >= this.bytes.length) return undefined;
        if (this.pos === before) this.pos++;
        continue;
      }
      items.push(value);
    }
  }

  private readToken(): Token {
    const { bytes } = this;
    const c = bytes[this.pos];
    if (c === undefined) return { kind: 'end' };
    if (c === Char.Less) {
      if (bytes[this.pos + 1] === Char.Less) {
        this.pos += 2;
        return { kind: 'dictOpen' };
      }
      this.skipHexString();
      return { kind: 'value', value: new PdfString() };
    }
    if (c === Char.Greater) {
      this.pos += bytes[this.pos + 1] === Char.Greater ? 2 : 1;
      return { kind: 'dictClose' };
    }
    if (c === Char.BracketOpen || c === Char.BracketClose) {
      this.pos++;
      return { kind: c === Char.BracketOpen ? 'arrayOpen' : 'arrayClose' };
    }
    if (c === Char.ParenOpen) {
      this.skipLiteralString();
      return { kind: 'value', value: new PdfString() };
    }
    if (c === Char.Slash) {
      this.pos++;
      return { kind: 'value', value: new PdfName(this.readRegularRun(true)) };
    }
    if (c === Char.ParenClose || c === Char.BraceOpen || c === Char.BraceClose) {
      this.pos++;
      return { kind: 'value', value: new PdfKeyword(String.fromCharCode(c)) };
    }
    const word = this.readRegularRun(false);
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) {
      const value = Number(word);
      return { kind: 'number', value, isInteger: /^[+-]?\d+$/.test(word) };
    }
    if (word === 'true' || word === 'false') return { kind: 'value', value: word === 'true' };
    if (word === 'null') return { kind: 'value', value: null };
    return { kind: 'value', value: new PdfKeyword(word) };
  }

  /** A run of regular characters, capped so one absurd token cannot build a huge string. */
  private readRegularRun(decodeHashEscapes: boolean): string {
    const { bytes } = this;
    const start = this.pos;
    while (this.pos < bytes.length && !isWhitespace(bytes[this.pos]) && !isDelimiter(bytes[this.pos])) this.pos++;
    const raw = Buffer.from(bytes.buffer, bytes.byteOffset + start, Math.min(this.pos - start, 256)).toString('latin1');
    if (this.pos === start && !decodeHashEscapes) this.pos++; // never stall on an unexpected byte
    if (!decodeHashEscapes || !raw.includes('#')) return raw;
    return raw.replace(/#([0-9a-fA-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }

  private skipHexString(): void {
    const end = this.bytes.indexOf(Char.Greater, this.pos + 1);
    this.pos = end < 0 ? this.bytes.length : end + 1;
  }

  private skipLiteralString(): void {
    const { bytes } = this;
    let nesting = 0;
    while (this.pos < bytes.length) {
      const c = bytes[this.pos++];
      if (c === Char.Backslash) {
        this.pos++;
      } else if (c === Char.ParenOpen) {
        nesting++;
      } else if (c === Char.ParenClose && --nesting === 0) {
        return;
      }
    }
  }
}

export function asDict(value: PdfValue | undefined): PdfDict | undefined {
  return value instanceof PdfDict ? value : undefined;
}

export function asNonNegativeInteger(value: PdfValue | undefined): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}
