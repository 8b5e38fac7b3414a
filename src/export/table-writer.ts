import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { stringify, type Stringifier } from 'csv-stringify';
import { neutralizeFormula } from '../util/formula-guard.js';
import { cellText } from './table-rows.js';
import { replaceFileByStream, type FileReplacement } from '../store/file-replacement.js';

/**
 * One CSV file, written through csv-stringify (node-csv: maintained, no
 * dependencies, streaming, RFC 4180 quoting of commas, quotes, CR and LF done
 * right; hand-written quoting is where CSV exporters go wrong). Records go in
 * with backpressure: `write` waits while the file is behind.
 */
export class CsvTableWriter {
  rows = 0;

  private constructor(
    readonly path: string,
    private readonly columns: readonly string[],
    private readonly stringifier: Stringifier,
    private readonly finished: Promise<void>,
    private readonly file: FileReplacement,
  ) {}

  /**
   * RFC 4180: CRLF between records, every field with a comma, quote, CR or
   * LF quoted, quotes doubled. `bom` prefixes a UTF-8 byte order mark, which
   * Excel needs to read non-ASCII text as UTF-8 (other tools do not want it).
   * Column names are data keys: neutralised like any cell.
   */
  static open(path: string, columns: string[], bom: boolean): CsvTableWriter {
    const stringifier = stringify({
      header: true,
      // Rows go in as lists in this order: csv-stringify reads a record's `a.b` or `a[0]` column as a path into
      // it when the record has no such key, so a row without a column could show a piece of another one.
      columns: columns.map((name) => ({ key: name, header: neutralizeFormula(name) })),
      bom,
      record_delimiter: 'windows',
      // A given record_delimiter turns this off by default; a lone LF or CR in a value must still be quoted.
      quote_record_delimiter: true,
    });
    // Written beside the table and renamed over it on close: a link at `path` is replaced, never followed.
    const file = replaceFileByStream(path);
    const finished = pipeline(stringifier, file.stream);
    finished.catch(() => undefined); // observed in close(); an early failure must not go unhandled meanwhile
    return new CsvTableWriter(path, columns, stringifier, finished, file);
  }

  async write(record: Record<string, unknown>): Promise<void> {
    const row = this.columns.map((name) => (Object.hasOwn(record, name) ? cellText(record[name]) : ''));
    this.rows += 1;
    if (!this.stringifier.write(row)) await Promise.race([once(this.stringifier, 'drain'), this.finished]);
  }

  /** Finish the file and put it in place, no more readable than `mode` allows (see export-mode.ts). */
  async close(mode?: number): Promise<void> {
    this.stringifier.end();
    try {
      await this.finished;
    } catch (error) {
      await this.file.discard();
      throw error;
    }
    await this.file.commit(mode);
  }
}
