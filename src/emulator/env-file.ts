import { rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * A word a POSIX shell reads back as `value`: left bare when it holds only
 * characters no shell treats specially, else in single quotes. Written here,
 * not imported from src/util/shell-quote.ts: the emulator shares no code with
 * the tool it tests (`emulator-stands-apart` in .dependency-cruiser.cjs).
 */
function shellWord(value: string): string {
  return /^[A-Za-z0-9_./:,=@%+-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The `export NAME=value` lines a shell sources (`. ./emulator.env`). */
export function envFileText(variables: readonly (readonly [string, string])[]): string {
  return variables.map(([name, value]) => `export ${name}=${shellWord(value)}\n`).join('');
}

/**
 * Writes the file whole or not at all: a temp file beside it (mode 0600: it
 * may hold a key), then a rename, so a shell waiting for it never sources
 * half a line.
 */
export async function writeEnvFile(path: string, variables: readonly (readonly [string, string])[]): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    await writeFile(temp, envFileText(variables), { mode: 0o600, flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}
