#!/usr/bin/env node
// The package's public API, entry by entry, held against the reports committed under docs/api-report/
// (API Extractor, one run per entry of package.json's "exports": it reads one entry at a time).
// `npm run api:check` (part of `npm run lint`) fails when an export changed and its report did not;
// `npm run api:update` rewrites the reports, to be reviewed and committed with the change.
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { importsOutsideReports } from './front-door-imports.js';

const root = resolve(import.meta.dirname, '..');
const update = process.argv.includes('--update');
const reportFolder = join(root, 'docs/api-report');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** `./emulator` -> `emulator`, `.` -> `docextract`: the report's file name. */
function reportNameOf(subpath) {
  return subpath === '.' ? 'docextract' : `docextract-${subpath.slice(2).replace(/\//g, '-')}`;
}

const entries = Object.entries(pkg.exports)
  .filter(([, target]) => typeof target === 'object' && target.types)
  .map(([subpath, target]) => ({ subpath, types: target.types }));

// Declarations from the sources into a folder of their own, so the check needs no build and sees this tree.
const out = mkdtempSync(join(tmpdir(), 'docextract-api-'));
let failed = 0;
const reports = new Map();
try {
  execFileSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json'), '--emitDeclarationOnly', '--outDir', out],
    {
      stdio: 'inherit',
    },
  );
  mkdirSync(reportFolder, { recursive: true });
  for (const { subpath, types } of entries) {
    const name = reportNameOf(subpath);
    const config = ExtractorConfig.prepare({
      configObject: {
        projectFolder: root,
        mainEntryPointFilePath: join(out, types.replace(/^\.\/dist\//, '')),
        compiler: { tsconfigFilePath: join(root, 'tsconfig.build.json') },
        apiReport: { enabled: true, reportFolder, reportTempFolder: join(out, 'api-report-temp'), reportFileName: name },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          extractorMessageReporting: {
            default: { logLevel: 'none' },
            'ae-forgotten-export': { logLevel: 'none', addToApiReportFile: false },
          },
          compilerMessageReporting: { default: { logLevel: 'warning' } },
          tsdocMessageReporting: { default: { logLevel: 'none' } },
        },
      },
      configObjectFullPath: join(root, 'api-extractor.json'),
      packageJsonFullPath: join(root, 'package.json'),
    });
    const result = Extractor.invoke(config, {
      localBuild: update,
      showVerboseMessages: false,
      messageCallback: (m) => {
        // API Extractor's own chatter (the TypeScript it bundles, where it wrote a file) is not news.
        if (m.category === 'console' || m.logLevel === 'none') m.handled = true;
      },
    });
    reports.set(subpath, readFileSync(join(reportFolder, `${name}.api.md`), 'utf8'));
    if (result.apiReportChanged && !update) {
      failed++;
      console.error(
        `api-report: the exports of docextract${subpath === '.' ? '' : subpath.slice(1)} changed; review them and run \`npm run api:update\` (docs/api-report/${name}.api.md)`,
      );
    } else if (!result.succeeded && !result.apiReportChanged) {
      failed++;
      console.error(`api-report: docextract${subpath === '.' ? '' : subpath.slice(1)}: ${result.errorCount} errors`);
    }
  }
  failed += frontDoorsOutsideReports(entries, reports);
} finally {
  rmSync(out, { recursive: true, force: true });
}
if (failed) process.exit(1);
console.error(`api-report: ${entries.length} entries ${update ? 'written' : 'match their reports'}`);

/** Names the CLI and MCP import from an entry that its report does not hold: each one is a failure. */
function frontDoorsOutsideReports(entries, reports) {
  const entrySources = new Map(
    entries.map(({ subpath, types }) => [join(root, types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts')), reports.get(subpath) ?? '']),
  );
  const outside = importsOutsideReports(root, ['src/cli', 'src/mcp'], entrySources);
  for (const { file, name, entry } of outside) {
    console.error(`api-report: ${file} imports ${name} from ${entry}, which its API report does not hold: a front door uses only the package's public API`);
  }
  return outside.length;
}
