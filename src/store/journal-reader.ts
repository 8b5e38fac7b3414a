import { hasErrorCode } from './fs-errors.js';
import { readPrivateFile } from './private-files.js';

/**
 * The journal's records, read without opening it for writing, without the
 * lock, and without repairing anything: for looking while another run may be
 * appending. A line that does not parse (a torn last line mid-append) is
 * passed over; repairing is the writer's job (`Journal.open`). No file: none.
 */
export async function readJournalSnapshot<T extends { type: string }>(path: string): Promise<T[]> {
  let text: string;
  try {
    text = await readPrivateFile(path);
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT')) return [];
    throw error;
  }
  const records: T[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string') records.push(value as T);
    } catch {
      // torn or damaged: a reader cannot tell which, and has nothing to repair
    }
  }
  return records;
}
