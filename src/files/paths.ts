import { dirname, sep } from 'node:path';

/** Extensions taken when searching folders and globs (compared case-insensitively). */
const SUPPORTED_EXTENSIONS: readonly string[] = ['.pdf', '.jpg', '.jpeg', '.png'];

export function hasSupportedExtension(path: string): boolean {
  const lower = path.toLowerCase();
  return SUPPORTED_EXTENSIONS.some((extension) => lower.endsWith(extension));
}

/** Hidden by Unix convention: the name starts with a dot (`.git`, `.DS_Store`). */
export function isHiddenName(name: string): boolean {
  return name.startsWith('.');
}

/**
 * Orders paths folder by folder: segment-wise, by code unit. The result is
 * the same on every machine (no locale), and a folder's files stay together
 * (`a/b.pdf` before `a-b.pdf`, which plain string order would not give).
 */
export function comparePaths(a: string, b: string): number {
  const left = a.split(sep);
  const right = b.split(sep);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const x = left[i] ?? '';
    const y = right[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return left.length - right.length;
}

/**
 * The deepest folder that contains every path added (all absolute), kept as
 * paths are found, so that no list of them is needed to know it.
 */
export class CommonFolder {
  private segments?: string[];

  add(path: string): void {
    const folder = dirname(path).split(sep);
    if (this.segments === undefined) {
      this.segments = folder;
      return;
    }
    let same = 0;
    while (same < Math.min(this.segments.length, folder.length) && folder[same] === this.segments[same]) same++;
    if (same < this.segments.length) this.segments.length = same;
  }

  /** The folder; `fallback` when no path was added. */
  value(fallback: string): string {
    return this.segments === undefined ? fallback : this.segments.join(sep) || sep;
  }
}
