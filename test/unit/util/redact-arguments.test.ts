import { describe, expect, it } from 'vitest';
import { commandLine } from '../../../src/cli/engine-access.js';
import { redactKeyArguments } from '../../../src/util/redact.js';

const KEY = 'sk_5ec2e7c0ffee00d15ea5edeadbeef042';

describe('a command line as it is kept and shown', () => {
  it('takes the key out of --api-key <key> and --api-key=<key>, and leaves everything else', () => {
    expect(redactKeyArguments(['--api-key', KEY, 'extract', 'in', '--out', 'out'])).toEqual(['--api-key', '***', 'extract', 'in', '--out', 'out']);
    expect(redactKeyArguments([`--api-key=${KEY}`, 'whoami'])).toEqual(['--api-key=***', 'whoami']);
    expect(redactKeyArguments(['extract', 'in', '--api-key', KEY, '--json'])).toEqual(['extract', 'in', '--api-key', '***', '--json']);
    expect(redactKeyArguments(['extract', 'sk_notakey.pdf'])).toEqual(['extract', 'sk_notakey.pdf']);
    expect(redactKeyArguments(['--api-key'])).toEqual(['--api-key']);
  });

  it('commandLine (what commands.json and `jobs` list) never holds the key', () => {
    const line = commandLine(['--api-key', KEY, 'extract', 'in', `--api-key=${KEY}`]);
    expect(line).toBe("docextract --api-key '***' extract in '--api-key=***'");
  });
});
