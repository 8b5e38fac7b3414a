import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { DocextractError } from '../util/docextract-error.js';

export interface PathListSource {
  /** A file to read, or `-` for standard input. */
  from: string;
  /** NUL-separated (`find -print0`), instead of one path a line. @default false */
  nulSeparated?: boolean;
}

/** A --files-from list that cannot be read at all: a usage problem, reported before anything is checked or sent. */
export class PathListError extends DocextractError {
  override readonly name = 'PathListError';
  /** Always `invalid_path_list`. */
  readonly code = 'invalid_path_list';
}

/**
 * Read a list of paths (for `extract --files-from`). One a line, with empty
 * lines skipped and a trailing `\r` stripped (lists written on Windows); or,
 * NUL-separated, taken byte for byte, since a name may hold a newline or a
 * trailing space and only NUL cannot appear in one. The names are literal:
 * the caller must not expand them as globs.
 */
export async function readPathList(source: PathListSource, io: { cwd: string; stdin: NodeJS.ReadableStream }): Promise<string[]> {
  const text = source.from === '-' ? await readAll(io.stdin) : await readListFile(resolve(io.cwd, source.from));
  return splitPathList(text, source.nulSeparated ?? false);
}

export function splitPathList(text: string, nulSeparated: boolean): string[] {
  if (nulSeparated) return text.split('\0').filter((name) => name !== '');
  return text
    .split('\n')
    .map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line))
    .filter((line) => line !== '');
}

async function readListFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new PathListError(`--files-from ${path}: cannot be read (${code}).`);
  }
}

/** The whole list before planning starts: planning dedupes and finds the common base folder, so it needs every name anyway. */
async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
