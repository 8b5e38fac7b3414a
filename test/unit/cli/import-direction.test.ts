/**
 * The CLI is a consumer of the library (issue 27): it reaches the engine
 * through src/library (and the features it runs), never the engine's own
 * parts. A runtime import (static or dynamic; `import type` is free) from
 * src/cli into batch/, features/host/, store/journal* or store/lock* fails
 * this test, naming the file and the import.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../../src');
const FORBIDDEN = [/^batch\//, /^features\/host\//, /^store\/journal/, /^store\/lock/];

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? sourceFiles(join(folder, entry.name)) : entry.name.endsWith('.ts') ? [join(folder, entry.name)] : []));
}

/** Every module a file loads at run time: `import … from`, `export … from` and `import()`, less `import type` / `export type`. */
export function runtimeImports(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+'([^']+)'/gms)) if (!match[2]) found.push(match[3] as string);
  for (const match of text.matchAll(/^\s*import\s+'([^']+)'/gm)) found.push(match[1] as string);
  for (const match of text.matchAll(/import\(\s*'([^']+)'\s*\)/g)) found.push(match[1] as string);
  return found;
}

describe('the CLI reaches the engine through the library', () => {
  it('reads runtime imports as they are written', () => {
    expect(runtimeImports("import type { A } from '../batch/a.js';\nimport { B } from '../batch/b.js';\nconst c = await import('../store/lock.js');\nexport { D } from './d.js';\nexport type { E } from './e.js';")).toEqual(['../batch/b.js', './d.js', '../store/lock.js']);
  });

  it('src/cli has no runtime import of batch/, features/host/, store/journal* or store/lock*', () => {
    const offending: string[] = [];
    for (const file of sourceFiles(join(SRC, 'cli'))) {
      for (const specifier of runtimeImports(readFileSync(file, 'utf8'))) {
        if (!specifier.startsWith('.')) continue;
        const target = relative(SRC, resolve(dirname(file), specifier)).replaceAll('\\', '/');
        if (FORBIDDEN.some((pattern) => pattern.test(target))) offending.push(`${relative(SRC, file)} imports ${target}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
