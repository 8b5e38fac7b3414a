import { readPathList } from '../path-list.js';
import { UsageError } from '../cli-errors.js';
import type { CliContext } from '../context.js';

export interface FilesFromFlags {
  filesFrom?: string;
  null?: boolean;
}

/** The paths `--files-from` names (none without it); an unreadable list is a usage error, before anything is checked. */
export async function listedInputs(ctx: CliContext, flags: FilesFromFlags): Promise<string[]> {
  if (flags.filesFrom === undefined) {
    if (flags.null) throw new UsageError('-0/--null describes a --files-from list; name one (or - for standard input).');
    return [];
  }
  // A list that cannot be read is a PathListError: invalid_path_list, exit 2 (error-table.ts).
  return readPathList({ from: flags.filesFrom, nulSeparated: flags.null }, ctx.io);
}
