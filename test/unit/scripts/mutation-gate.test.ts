import { describe, expect, it } from 'vitest';
import { chooseBase, modulesToScore } from '../../../scripts/mutation-gate.js';

const CORE = ['src/checks/x-sum.ts', 'src/batch/admission.ts', 'src/api/retry-policy.ts'];

/**
 * An import line of `module` (src/…/x.ts), put together when the test runs: written out whole, it would
 * make this file a test that covers the module, and a change to it would score the module again.
 */
const importOf = (module: string, up = '../../..'): string => `import { x } from '${[up, module.replace(/\.ts$/, '.js')].join('/')}';`;

/** The text of each changed test, as the gate reads it (from the working tree, or the base when removed). */
const texts: Record<string, string> = {
  'test/unit/checks/x-sum.test.ts': importOf('src/checks/x-sum.ts'),
  'test/unit/batch/queue.test.ts': `${importOf('src/batch/admission.ts')}\n${importOf('src/batch/admission-extra.ts')}`,
  'test/unit/api/retry-policy.test.ts': importOf('src/api/index.ts'),
  'test/unit/api/other.test.ts': importOf('src/api/index.ts'),
  'test/integration/checks.test.ts': importOf('src/checks/x-sum.ts', '../..'),
};
const select = (changed: string[]): string[] => modulesToScore({ changed, coreModules: CORE, testText: (path) => texts[path] ?? '' });

describe('the mutation gate: which core modules a change scores again', () => {
  it('a core module whose own file changed, and no other', () => {
    expect(select(['src/checks/x-sum.ts', 'src/cli/main.ts', 'README.md'])).toEqual(['src/checks/x-sum.ts']);
  });

  it('none when no core module or unit test covering one changed', () => {
    expect(select(['src/cli/main.ts', 'src/checks/problems.ts', 'test/unit/api/other.test.ts', 'scripts/soak.js'])).toEqual([]);
  });

  it('a core module one of whose unit tests changed: it imports the module, or is named after it', () => {
    expect(select(['test/unit/checks/x-sum.test.ts'])).toEqual(['src/checks/x-sum.ts']);
    expect(select(['test/unit/batch/queue.test.ts'])).toEqual(['src/batch/admission.ts']);
    expect(select(['test/unit/api/retry-policy.test.ts'])).toEqual(['src/api/retry-policy.ts']);
  });

  it('not for an integration test (Stryker runs the unit tests), nor a file that is no test', () => {
    expect(select(['test/integration/checks.test.ts', 'test/unit/checks/x-sum.fixture.json'])).toEqual([]);
  });

  it('in the order of the core list, each once', () => {
    expect(select(['test/unit/api/retry-policy.test.ts', 'src/checks/x-sum.ts', 'test/unit/checks/x-sum.test.ts', 'src/batch/admission.ts'])).toEqual(CORE);
  });

  it('reads a removed test from where the gate says (the base), not from the working tree', () => {
    const asked: string[] = [];
    const modules = modulesToScore({
      changed: ['test/unit/checks/gone.test.ts'],
      coreModules: CORE,
      testText: (path) => (asked.push(path), importOf('src/checks/x-sum.ts')),
    });
    expect(modules).toEqual(['src/checks/x-sum.ts']);
    expect(asked).toEqual(['test/unit/checks/gone.test.ts']);
  });
});

describe('the mutation gate: the base it measures against', () => {
  const candidates = [
    { from: 'ci', commit: undefined },
    { from: 'file', commit: 'aaaa' },
    { from: 'merge base', commit: 'bbbb' },
  ];

  it('the first candidate named that this clone holds', () => {
    expect(chooseBase(candidates, () => true)).toEqual({ from: 'file', commit: 'aaaa' });
    expect(chooseBase([{ from: 'ci', commit: 'cccc' }, ...candidates], () => true)).toEqual({ from: 'ci', commit: 'cccc' });
  });

  it('the next one when a commit is not in the clone; none when no candidate is', () => {
    expect(chooseBase(candidates, (commit) => commit === 'bbbb')).toEqual({ from: 'merge base', commit: 'bbbb' });
    expect(chooseBase(candidates, () => false)).toBeUndefined();
  });
});
