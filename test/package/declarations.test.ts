/**
 * What a TypeScript project that imports docextract compiles: dist/index.d.ts
 * and every declaration file it reaches. None may import zod: its .d.cts
 * files break a project with default settings (TS1259 from
 * zod/v4/locales/index.d.cts) and tie the library's types to zod's major.
 * dist/ is built by test/global-setup.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const dist = resolve(import.meta.dirname, '../../dist');

/** Module specifiers of `import … from`, `export … from`, `import('…')` and `/// <reference path>` in a .d.ts. */
function specifiersIn(text: string): string[] {
  const patterns = [
    /\bfrom\s+['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /^\s*import\s+['"]([^'"]+)['"]/gm,
    /\/\/\/\s*<reference\s+(?:path|types)=['"]([^'"]+)['"]/g,
  ];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1] as string));
}

/** Every .d.ts reached from `entry` through relative imports, and the bare packages each one imports. */
function declarationGraph(entry: string): Map<string, string[]> {
  const reached = new Map<string, string[]>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (reached.has(file)) continue;
    const specifiers = specifiersIn(readFileSync(file, 'utf8'));
    reached.set(
      file,
      specifiers.filter((specifier) => !specifier.startsWith('.')),
    );
    for (const specifier of specifiers.filter((s) => s.startsWith('.'))) {
      const target = resolve(dirname(file), specifier.replace(/\.js$/, '.d.ts'));
      const found = [target, `${target}.d.ts`, resolve(target, 'index.d.ts')].find(existsSync);
      if (!found) throw new Error(`${relative(dist, file)} imports ${specifier}, which has no declaration file`);
      pending.push(found);
    }
  }
  return reached;
}

describe('the public declarations', () => {
  it('reach the API answers from dist/index.d.ts without importing zod anywhere', () => {
    const graph = declarationGraph(resolve(dist, 'index.d.ts'));
    const files = [...graph.keys()].map((file) => relative(dist, file));
    // The walk itself must reach the answers' declarations, or it proves nothing.
    expect(files).toContain('api/index.d.ts');
    expect(files.some((file) => /^api\/(answers|client)\.d\.ts$/.test(file))).toBe(true);
    const zodImports = [...graph.entries()]
      .filter(([, packages]) => packages.some((name) => name === 'zod' || name.startsWith('zod/')))
      .map(([file]) => relative(dist, file));
    expect(zodImports).toEqual([]);
  });

  it('of docextract/emulator import no zod either', () => {
    const graph = declarationGraph(resolve(dist, 'emulator/index.d.ts'));
    const zodImports = [...graph.entries()]
      .filter(([, packages]) => packages.some((name) => name === 'zod' || name.startsWith('zod/')))
      .map(([file]) => relative(dist, file));
    expect(zodImports).toEqual([]);
  });
});
