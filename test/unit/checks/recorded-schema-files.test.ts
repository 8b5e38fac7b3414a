import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SchemaFileError, SCHEMA_MAX_BYTES } from '../../../src/checks/load-schemas.js';
import { RecordedSchemas } from '../../../src/checks/recorded-schemas.js';

/**
 * Issue 51: a schema path recorded in a result (`checks.schema`) is the
 * result's word, not the user's: `check` once hung on a FIFO there and read
 * 637 MB of /dev/zero. It is opened only as a regular file, not through a
 * link, within a size cap, and each refusal is an invalid_schema naming it.
 */
const SCHEMA = JSON.stringify({ type: 'object' });

async function refusalOf(path: string): Promise<string> {
  const loaded = await new RecordedSchemas(tmpdir()).checkerFor(path, 'invoice');
  expect(loaded).toBeInstanceOf(SchemaFileError);
  return (loaded as SchemaFileError).message;
}

describe('a schema path a result records is opened only as a small regular file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'docextract-recorded-schema-'));

  it('refuses a FIFO at once, without waiting for a writer', async () => {
    const fifo = join(dir, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    expect(await refusalOf(fifo)).toBe(`schema ${fifo}: not a regular file`);
  }, 5_000); // without O_NONBLOCK the open waits for a writer forever

  it('refuses /dev/zero without reading it', async () => {
    const before = process.memoryUsage().rss;
    expect(await refusalOf('/dev/zero')).toBe('schema /dev/zero: not a regular file');
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('refuses a file past the cap before reading it', async () => {
    const big = join(dir, 'big.json');
    writeFileSync(big, ' '.repeat(SCHEMA_MAX_BYTES + 1));
    expect(await refusalOf(big)).toBe(`schema ${big}: larger than ${SCHEMA_MAX_BYTES} bytes (${SCHEMA_MAX_BYTES + 1})`);
  });

  it('does not follow a link, and still reads a plain schema file', async () => {
    const real = join(dir, 'invoice.schema.json');
    writeFileSync(real, SCHEMA);
    const link = join(dir, 'link.json');
    symlinkSync(real, link);
    expect(await refusalOf(link)).toContain('is a symbolic link');
    expect(await new RecordedSchemas(tmpdir()).checkerFor(real, 'invoice')).not.toBeInstanceOf(SchemaFileError);
  });
});
