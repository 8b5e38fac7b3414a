import { readdir, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';

/** A file the page loads from the package itself (nothing from the network): its path on disk and its type. */
export interface PackageAsset {
  path: string;
  type: string;
}

const TYPES: Record<string, string> = {
  '.mjs': 'text/javascript; charset=utf-8',
  '.pfb': 'application/octet-stream',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.bcmap': 'application/octet-stream',
};

/**
 * pdf.js as the build copies it into the package (dist/review-page/pdfjs-dist/,
 * scripts/pdfjs-files.js: pdfjs-dist is a devDependency, never installed with
 * docextract), its legacy build (it runs in older browsers too): the library,
 * its worker, and the data it asks for by name (the standard fonts, the
 * character maps, the image decoders). Only names listed in those folders are served.
 */
export class PdfjsAssets {
  private constructor(
    private readonly root: string,
    private readonly names: ReadonlyMap<string, ReadonlySet<string>>,
  ) {}

  static async locate(): Promise<PdfjsAssets> {
    const root = await pdfjsFolder();
    const names = new Map<string, Set<string>>([['build', new Set(['pdf.min.mjs', 'pdf.worker.min.mjs'])]]);
    for (const folder of ['standard_fonts', 'cmaps', 'wasm']) {
      names.set(folder, new Set(await readdir(join(root, folder)).catch(() => [])));
    }
    return new PdfjsAssets(root, names);
  }

  /** `build/pdf.min.mjs`, `standard_fonts/FoxitSerif.pfb`...; undefined for anything not listed. */
  find(path: string): PackageAsset | undefined {
    const [folder, name, ...rest] = path.split('/');
    if (folder === undefined || name === undefined || rest.length > 0 || !this.names.get(folder)?.has(name)) return undefined;
    const onDisk = folder === 'build' ? join(this.root, 'legacy', 'build', name) : join(this.root, folder, name);
    const extension = /\.[a-z0-9]+$/.exec(name)?.[0] ?? '';
    return { path: onDisk, type: TYPES[extension] ?? 'application/octet-stream' };
  }
}

/**
 * The single executable (npm run build:binary) has no node_modules: pdf.js ships beside it, in
 * docextract-assets/. The package has the build's copy beside the page's files. Run from the
 * sources (tests, a clone before its build), there is no copy: the devDependency is installed.
 */
async function pdfjsFolder(): Promise<string> {
  if (isSea()) return join(dirname(process.execPath), 'docextract-assets', 'pdfjs-dist');
  // Beside the page's files (page-files.ts's PAGE_FOLDER, not imported: it imports this module's types).
  const copied = fileURLToPath(new URL('../review-page/pdfjs-dist/', import.meta.url));
  return (await isFolder(copied)) ? copied : dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
