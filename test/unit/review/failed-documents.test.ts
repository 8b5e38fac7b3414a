import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { failedDocuments } from '../../../src/review/failed-documents.js';
import { writeLastRunReport, type LastRunFile } from '../../../src/store/last-run-report.js';

const failed = (file: string, code: string, extra: Partial<LastRunFile> = {}): LastRunFile => ({
  file,
  source: `/in/${file}`,
  status: 'failed',
  code,
  message: `${file}: ${code}`,
  ...extra,
});

async function stateWith(reports: { account: string; out_dir?: string; finished_at: string; files: LastRunFile[] }[]): Promise<string> {
  const stateDir = mkdtempSync(join(tmpdir(), 'docextract-failed-'));
  for (const { account, ...report } of reports) await writeLastRunReport(stateDir, account, { started_at: report.finished_at, counts: {}, ...report });
  return stateDir;
}

describe('failedDocuments', () => {
  it('lists the failed, skipped and interrupted files of the runs that wrote to the folder, not partial ones nor those with a result now', async () => {
    const out = mkdtempSync(join(tmpdir(), 'docextract-out-'));
    const stateDir = await stateWith([
      {
        account: 'aa',
        out_dir: out,
        finished_at: '2026-01-01T00:00:00.000Z',
        files: [
          failed('a.pdf', 'extraction_failed'),
          failed('b.pdf', 'partial', { status: 'partial' }),
          failed('c.pdf', 'interrupted', { status: 'interrupted' }),
          failed('d.pdf', 'invalid_file'),
          { file: 'nowhere/*.pdf', status: 'failed', code: 'file_not_found', message: 'no match' },
        ],
      },
      { account: 'bb', out_dir: '/elsewhere', finished_at: '2026-01-01T00:00:00.000Z', files: [failed('e.pdf', 'extraction_failed')] },
      { account: 'cc', finished_at: '2026-01-01T00:00:00.000Z', files: [failed('f.pdf', 'extraction_failed')] },
    ]);
    const listed = await failedDocuments(stateDir, out, (source) => source === '/in/d.pdf');
    expect(listed.map((doc) => [doc.file, doc.source, doc.status, doc.code])).toEqual([
      ['a.pdf', '/in/a.pdf', 'failed', 'extraction_failed'],
      ['c.pdf', '/in/c.pdf', 'interrupted', 'interrupted'],
      ['nowhere/*.pdf', undefined, 'failed', 'file_not_found'],
    ]);
    expect(new Set(listed.map((doc) => doc.id)).size).toBe(3);
    expect(listed.every((doc) => /^failed:[0-9a-f]{20}$/.test(doc.id))).toBe(true);
  });

  it('takes the folder by where it is (a link to it is the same folder), and lists a file two runs reported once, as the later one left it', async () => {
    const base = mkdtempSync(join(tmpdir(), 'docextract-out-'));
    mkdirSync(join(base, 'real'));
    symlinkSync(join(base, 'real'), join(base, 'link'));
    const stateDir = await stateWith([
      {
        account: 'aa',
        out_dir: join(base, 'link'),
        finished_at: '2026-01-02T00:00:00.000Z',
        files: [failed('a.pdf', 'too_many_open_jobs', { status: 'skipped' })],
      },
      { account: 'bb', out_dir: `${join(base, 'real')}/`, finished_at: '2026-01-01T00:00:00.000Z', files: [failed('a.pdf', 'extraction_failed')] },
    ]);
    const listed = await failedDocuments(stateDir, join(base, 'real'), () => false);
    expect(listed.map((doc) => [doc.file, doc.status, doc.code, doc.finished_at])).toEqual([
      ['a.pdf', 'skipped', 'too_many_open_jobs', '2026-01-02T00:00:00.000Z'],
    ]);
  });
});
