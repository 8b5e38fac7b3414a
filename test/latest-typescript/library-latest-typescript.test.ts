/**
 * `npm run test:latest-typescript`, not part of `npm test` (it needs the
 * registry, and a new TypeScript release may turn it red without a change
 * here): the README's set-up run as written, `npm install --save-dev
 * typescript @types/node@20` fetching the newest TypeScript, the example
 * compiled with it (`npx tsc`) under --strict and the emulator entry point run.
 * .ci/run calls it when the registry answers.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compile, installedVersion, readmeProject, run } from '../helpers/readme-project.js';

let project: string;

beforeAll(async () => {
  project = await readmeProject('registry');
  console.log(`library-latest-typescript: the README's set-up installed TypeScript ${installedVersion(project, 'typescript')} from the registry`);
}, 300_000);

describe('the packed library with the newest TypeScript on the registry', () => {
  it('compiles as the README builds it (npx tsc), under --strict, and runs', async () => {
    expect(await compile(project, ['--strict'])).toBe('');
    const served = await run(process.execPath, [join(project, 'dist/emulator-check.js')], { cwd: project });
    expect(served.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/);
  }, 120_000);
});
