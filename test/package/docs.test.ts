/**
 * The library's reference stays complete: TypeDoc, with the project's
 * typedoc.json (notDocumented validation, warnings as errors), converts and
 * validates both entry points without writing anything. A newly exported
 * symbol, or a new field on an exported type, without a JSDoc comment fails
 * here rather than in `npm run docs`.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** TypeDoc's exit code and everything it printed; a non-zero exit is a result here, not a throw. */
async function typedoc(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [resolve(root, 'node_modules/typedoc/bin/typedoc'), ...args], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1' },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe('the API reference', () => {
  it('documents every exported symbol of the library and the emulator, with no warning', async () => {
    const { code, output } = await typedoc('--emit', 'none');

    expect(output).not.toContain('does not have any documentation');
    expect(output).not.toMatch(/\[(warning|error)\]/);
    expect(code).toBe(0);
  }, 90_000); // about 6 s on an idle machine; TypeDoc type-checks the whole program, so allow for a loaded one
});
