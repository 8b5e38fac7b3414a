import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { hasErrorCode } from './fs-errors.js';

/**
 * The state folder's files kept per account whose names `pattern` matches
 * (its first group is the account), in name order: every account's, or only
 * `account`'s. None when the folder is not there yet.
 */
export async function accountFiles(stateDir: string, pattern: RegExp, account?: string): Promise<{ path: string; account: string }[]> {
  let names: string[];
  try {
    names = await readdir(stateDir);
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT') || hasErrorCode(error, 'ENOTDIR')) return [];
    throw error;
  }
  return names.sort().flatMap((name) => {
    const owner = pattern.exec(name)?.[1];
    return owner !== undefined && (account === undefined || owner === account) ? [{ path: join(stateDir, name), account: owner }] : [];
  });
}
