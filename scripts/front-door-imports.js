// The front doors (src/cli, src/mcp) use the package as any program would: every name they import from a
// public entry must be in that entry's committed API report. Re-exporting an engine insider through an
// entry to reach it from the CLI then shows up in the report's review, not only in the code.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const DECLARED = /^export (?:declare )?(?:abstract )?(?:class|interface|function|type|const|let|enum|namespace) ([A-Za-z_$][\w$]*)/gm;
const IMPORT = /import\s+(type\s+)?\{([^}]*)\}\s*from\s*'([^']+)'/g;
const EXPORT_FROM = /export\s+(type\s+)?\{([^}]*)\}\s*from\s*'([^']+)'/g;

/** The names an API report declares as exported. */
export function namesInReport(report) {
  return new Set([...report.matchAll(DECLARED)].map((m) => m[1]));
}

/** `{ a, type B, c as d }` -> ['a', 'B', 'c']: the names taken from the module. */
export function importedNames(list) {
  return list
    .split(',')
    .map((part) =>
      part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)[0]
        .trim(),
    )
    .filter(Boolean);
}

function sourceFiles(folder) {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * Each import in `folders` that resolves to the source of a public entry, with the names not in its report.
 * `entrySources` maps a source file (src/…/x.ts) to its report's text.
 */
export function importsOutsideReports(root, folders, entrySources) {
  const found = [];
  for (const file of folders.flatMap((folder) => sourceFiles(join(root, folder)))) {
    const text = readFileSync(file, 'utf8');
    for (const pattern of [IMPORT, EXPORT_FROM]) {
      for (const [, , list, specifier] of text.matchAll(pattern)) {
        if (!specifier.startsWith('.')) continue;
        const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
        const report = entrySources.get(target);
        if (report === undefined) continue;
        const declared = namesInReport(report);
        for (const name of importedNames(list)) {
          if (!declared.has(name)) found.push({ file: relative(root, file), name, entry: relative(root, target) });
        }
      }
    }
  }
  return found;
}
