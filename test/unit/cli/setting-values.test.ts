/**
 * Values the service cannot have, and numbers without units, are refused
 * where they are typed, with the reason: each of these was once accepted and
 * failed later, or meant something else (issue 18, defect 7).
 */
import { describe, expect, it } from 'vitest';
import { parseRateWindows, runSettings } from '../../../src/library/settings.js';
import { checkApiKeyShape } from '../../../src/config/api-key.js';
import { parseBaseUrl } from '../../../src/config/base-url.js';
import { validateSettingValue } from '../../../src/config/validate-setting.js';
import { ModelRules } from '../../../src/engine/model-rules.js';
import { PageRules } from '../../../src/engine/page-rules.js';
import { SchemaRules } from '../../../src/checks/schema-rules.js';
import { parseDuration } from '../../../src/config/grammar/duration.js';
import type { RunSettings } from '../../../src/batch/batch-types.js';

const parsers = {
  modelRules: ModelRules.parseList,
  pageRules: PageRules.parseList,
  schemaRules: (spec: string) => SchemaRules.parseList(spec).toList('/work'),
  runSetting: (field: keyof RunSettings, value: number) => void runSettings({ [field]: value }),
};

describe('durations', () => {
  it('refuse a number without its unit (2 was read as 2 ms)', () => {
    expect(() => parseDuration('2')).toThrow('"2" has no unit; say 2s, 2min or 2h (or ms).');
  });

  it.each([
    ['2 hours', 7_200_000],
    ['90 seconds', 90_000],
    ['15 minutes', 900_000],
    ['1 day', 86_400_000],
    ['500ms', 500],
  ])('read %s', (spec, ms) => {
    expect(parseDuration(spec)).toBe(ms);
  });
});

describe('rate windows', () => {
  it.each([
    ['10/hour', 3_600_000],
    ['10/minute', 60_000],
    ['10/second', 1000],
    ['1000/day', 86_400_000],
    ['5/2hours', 7_200_000],
  ])('read %s as spelled out', (spec, windowMs) => {
    expect(parseRateWindows(spec)).toEqual([expect.objectContaining({ limit: Number(spec.split('/')[0]), windowMs })]);
  });
});

describe('settings the service cannot have', () => {
  it.each([
    ['open-jobs', '9', 'the service allows at most 5 open multi-page jobs per key'],
    ['job-ttl', '3h', 'a job lives at most 2h on the service'],
    ['job-ttl', '0s', 'a job lives at most 2h on the service'],
    ['job-ttl', '2', 'has no unit'],
    ['pages', '0', 'not a page or a range'],
    ['pages', 'invoices/**=1-x', 'not a page or a range'],
  ] as const)('config set %s %s is refused', (key, value, why) => {
    const checked = validateSettingValue(key, value, parsers);
    expect(checked.ok).toBe(false);
    expect(checked.ok === false && checked.message).toContain(why);
  });

  it('an upper-case hexadecimal key is refused before the service sees it', () => {
    const shape = checkApiKeyShape('sk_0123456789ABCDEF0123456789abcdef');
    expect(shape.ok).toBe(false);
    expect(shape.ok === false && shape.message).toContain('upper-case');
    expect(checkApiKeyShape('sk_0123456789abcdef0123456789abcdef').ok).toBe(true);
  });
});

describe('base URLs', () => {
  it.each([
    ['http://127.0.0.1:40863/v3.1', 'http://127.0.0.1:40863'],
    ['https://api.example.com/v3.1/', 'https://api.example.com'],
    ['https://gw.example.com/extract/v3', 'https://gw.example.com/extract'],
    ['https://api.example.com/', 'https://api.example.com'],
  ])('%s is the service at %s (the tool adds /v3.1 itself)', (raw, url) => {
    expect(parseBaseUrl(raw)).toEqual({ ok: true, url });
  });

  it.each([
    ['127.0.0.1:40863', 'did you mean http://127.0.0.1:40863?'],
    ['localhost:8080', 'did you mean http://localhost:8080?'],
    ['api.example.com', 'did you mean https://api.example.com?'],
    ['ftp://example.com', 'must be http or https'],
  ])('%s is refused with a suggestion', (raw, said) => {
    const checked = parseBaseUrl(raw);
    expect(checked.ok).toBe(false);
    expect(checked.ok === false && checked.message).toContain(said);
  });
});
