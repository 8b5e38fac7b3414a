/**
 * A full disk without mount rights: folders marked full make every write below
 * them fail with ENOSPC, through a `vi.mock('node:fs/promises')` in the test
 * file (the writer seam: the result writer and the output probe write through
 * fs/promises). Used where a real tiny tmpfs cannot be mounted (not root, or a
 * container that forbids it). Imports nothing from node:fs/promises itself, so
 * that it can build the mock of it.
 */
import type * as FsPromises from 'node:fs/promises';

const fullFolders = new Set<string>();

export const fullDisk = {
  /** Every write below `folder` fails with ENOSPC from now on. */
  fill(folder: string): void {
    fullFolders.add(folder);
  },
  empty(folder: string): void {
    fullFolders.delete(folder);
  },
};

function isOnFullDisk(path: unknown): path is string {
  return typeof path === 'string' && [...fullFolders].some((folder) => path.startsWith(`${folder}/`));
}

function noSpace(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: no space left on device, write '${path}'`), { code: 'ENOSPC', errno: -28, syscall: 'write', path });
}

/** The real fs/promises, except that writes below a full folder fail as on a full disk (open succeeds, the write does not). */
export function fsPromisesWithFullDisk(real: typeof FsPromises): typeof FsPromises {
  const writeFile: typeof real.writeFile = (path, ...rest) => (isOnFullDisk(path) ? Promise.reject(noSpace(path)) : real.writeFile(path, ...rest));
  const open: typeof real.open = async (path, ...rest) => {
    const handle = await real.open(path, ...rest);
    if (!isOnFullDisk(path)) return handle;
    return new Proxy(handle, {
      get(target, property) {
        if (property === 'write' || property === 'writeFile' || property === 'writev' || property === 'appendFile') return () => Promise.reject(noSpace(path));
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  };
  // A default export too, for `import fs from 'node:fs/promises'`; the types do not declare it.
  const realDefault = (real as unknown as { default?: typeof FsPromises }).default ?? real;
  return { ...real, writeFile, open, default: { ...realDefault, writeFile, open } } as typeof FsPromises;
}
