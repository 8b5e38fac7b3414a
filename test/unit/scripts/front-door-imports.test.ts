import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importedNames, importsOutsideReports, namesInReport } from '../../../scripts/front-door-imports.js';

const REPORT = [
  '## API Report File for "docextract"',
  '```ts',
  'export class DocExtract {',
  '}',
  'export interface ExtractOptions {',
  '}',
  'export type DocumentStatus = "complete";',
  'export function parseRateWindows(text: string): RateWindow[];',
  'export const RUN_DEFAULTS: {};',
  '// Warning: (ae-forgotten-export) The symbol "RideAlong" needs to be exported by the entry point index.d.ts',
  'interface RideAlong {}',
  '```',
].join('\n');

describe('the names a front door may import', () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('reads what a report exports, and nothing it only mentions', () => {
    expect([...namesInReport(REPORT)].sort()).toEqual(['DocExtract', 'DocumentStatus', 'ExtractOptions', 'RUN_DEFAULTS', 'parseRateWindows']);
  });

  it('takes the imported name, not the local alias or the type keyword', () => {
    expect(importedNames(' DocExtract, type ExtractOptions,\n  parseRateWindows as parse ')).toEqual(['DocExtract', 'ExtractOptions', 'parseRateWindows']);
  });

  it('names every import from an entry that its report does not hold, and passes the rest', () => {
    root = mkdtempSync(join(tmpdir(), 'front-doors-'));
    mkdirSync(join(root, 'src/cli/run'), { recursive: true });
    mkdirSync(join(root, 'src/engine'), { recursive: true });
    writeFileSync(
      join(root, 'src/cli/run/extract.ts'),
      [
        "import { DocExtract, type ExtractOptions } from '../../index.js';",
        "import type { RideAlong } from '../../index.js';",
        "import { somethingPrivate } from '../../engine/x.js';",
        "export { RUN_DEFAULTS, insider } from '../../index.js';",
      ].join('\n'),
    );
    const entrySources = new Map([[join(root, 'src/index.ts'), REPORT]]);
    expect(importsOutsideReports(root, ['src/cli'], entrySources)).toEqual([
      { file: 'src/cli/run/extract.ts', name: 'RideAlong', entry: 'src/index.ts' },
      { file: 'src/cli/run/extract.ts', name: 'insider', entry: 'src/index.ts' },
    ]);
  });
});
