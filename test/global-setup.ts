import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * Tests that run the CLI as a child process (kill -9, Ctrl-C) need dist/ to
 * match src/: build once per test run, help texts included (bin/ answers
 * --help from them; test/unit/cli/help-texts.test.ts holds them to src/).
 */
export default function buildOnce(): void {
  const root = resolve(import.meta.dirname, '..');
  execFileSync(process.execPath, [resolve(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, [resolve(root, 'scripts/build-help-texts.js')], { cwd: root, stdio: 'inherit' });
}
