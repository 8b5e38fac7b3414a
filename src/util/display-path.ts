import { isAbsolute, relative, sep } from 'node:path';

/** The path as the user would recognise it: relative to `cwd` when inside it, absolute otherwise. */
export function toDisplayPath(path: string, cwd: string): string {
  const relativePath = relative(cwd, path);
  if (relativePath === '' || isAbsolute(relativePath) || relativePath === '..' || relativePath.startsWith(`..${sep}`)) return path;
  return relativePath;
}
