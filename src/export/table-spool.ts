import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { newRecord, type FlatRecord } from './flatten.js';
import type { TableRow } from './table-rows.js';

/** One table's rows, set aside on disk until the workbook gets to its sheet. */
export interface SpooledTable {
  name: string;
  kind: TableRow['kind'];
  /** Every column name seen in its rows. */
  columns: ReadonlySet<string>;
  rows: number;
  /** Its rows, read back one at a time, in the order they were added. */
  records(): AsyncIterable<FlatRecord>;
}

interface OpenTable {
  kind: TableRow['kind'];
  columns: Set<string>;
  rows: number;
  path: string;
  stream: WriteStream;
}

/**
 * A workbook is one zip, and its sheets go into it one after the other:
 * rows of the second sheet that arrived while the first was open would wait
 * in memory. So each table's rows are written, as they come, to a file of
 * their own in a private temporary folder (one JSON line per row), and the
 * sheets are then written one at a time from those files: memory holds the
 * column names, never the rows. The folder is removed when done.
 */
export class TableSpool {
  private readonly tables = new Map<string, OpenTable>();

  private constructor(private readonly dir: string) {}

  static async open(): Promise<TableSpool> {
    // mkdtemp makes the folder 0700: the rows are the documents' data.
    return new TableSpool(await mkdtemp(join(tmpdir(), 'docextract-xlsx-')));
  }

  async add(row: TableRow): Promise<void> {
    let table = this.tables.get(row.table);
    if (!table) {
      const path = join(this.dir, `${this.tables.size}.ndjson`);
      table = { kind: row.kind, columns: new Set(), rows: 0, path, stream: createWriteStream(path, { flags: 'wx' }) };
      this.tables.set(row.table, table);
    }
    for (const name of Object.keys(row.record)) table.columns.add(name);
    table.rows += 1;
    // Entries, not an object: a `__proto__` key from a document comes back as a column like any other.
    if (!table.stream.write(`${JSON.stringify(Object.entries(row.record))}\n`)) await once(table.stream, 'drain');
  }

  /** Every table, by name (code unit order), its file complete. */
  async finish(): Promise<SpooledTable[]> {
    await Promise.all(
      [...this.tables.values()].map(
        (table) => new Promise((resolve, reject) => table.stream.end((error?: Error | null) => (error ? reject(error) : resolve(undefined)))),
      ),
    );
    return [...this.tables.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, table]) => ({ name, kind: table.kind, columns: table.columns, rows: table.rows, records: () => readRecords(table.path) }));
  }

  async remove(): Promise<void> {
    for (const table of this.tables.values()) table.stream.destroy();
    await rm(this.dir, { recursive: true, force: true });
  }
}

async function* readRecords(path: string): AsyncGenerator<FlatRecord> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line !== '') yield newRecord(Object.fromEntries(JSON.parse(line) as [string, unknown][]));
  }
}
