import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One row of fixtures/corpus/manifest.json. */
export interface CorpusFile {
  name: string;
  type: 'pdf' | 'jpeg' | 'png' | null;
  pages: number | null;
  preflight: string | null;
  exercises: string;
  actualPages?: number;
  crossCheck?: { pdfLib?: boolean; qpdf?: boolean };
}

export const CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/corpus');

export function corpusFiles(): CorpusFile[] {
  const manifest = JSON.parse(readFileSync(join(CORPUS_DIR, 'manifest.json'), 'utf8')) as { files: CorpusFile[] };
  return manifest.files;
}

export function corpusPath(file: CorpusFile | string): string {
  return join(CORPUS_DIR, typeof file === 'string' ? file : file.name);
}
