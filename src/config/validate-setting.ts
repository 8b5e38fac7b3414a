import { checkApiKeyShape } from './api-key.js';
import { parseBaseUrl } from './base-url.js';
import type { RunSettings } from './run-tuning.js';
import { findSetting, type SettingKey } from './settings.js';
import { parseObjectRoots } from './grammar/object-roots.js';

export type ValueCheck = { ok: true; value: string } | { ok: false; message: string };

/**
 * Validate a value before it is stored, so that a typo fails at `config set`
 * rather than at the next batch. The grammar of each value is the settings
 * table's; the rules (model, page and schema rules) and the engine's own
 * check of a run setting come from the caller, which may load them.
 */
export function validateSettingValue(
  key: SettingKey,
  raw: string,
  parsers: {
    modelRules: (spec: string) => unknown;
    pageRules: (spec: string) => unknown;
    /** Returns the value to store (schema files made absolute). */
    schemaRules: (spec: string) => string;
    /** The engine's own check of one run setting (library/settings.ts: runSettings); throws with the reason. */
    runSetting: (field: keyof RunSettings, value: number) => void;
  },
): ValueCheck {
  const value = raw.trim();
  try {
    switch (key) {
      case 'api-key': {
        const shape = checkApiKeyShape(value);
        return shape.ok ? { ok: true, value } : shape;
      }
      case 'base-url': {
        const url = parseBaseUrl(value);
        return url.ok ? { ok: true, value: url.url } : url;
      }
      case 'rate-limit':
      case 'job-ttl':
      case 'concurrency':
      case 'open-jobs': {
        const definition = findSetting(key);
        const typed = definition?.parse(value);
        if (definition?.runField && typeof typed === 'number') parsers.runSetting(definition.runField, typed);
        return { ok: true, value };
      }
      case 'model':
        return value ? { ok: true, value: value.toLowerCase() } : { ok: false, message: 'model must not be empty.' };
      case 'models':
        parsers.modelRules(value);
        return value ? { ok: true, value } : { ok: false, message: 'models must not be empty (use config unset models).' };
      case 'pages':
        if (!value) return { ok: false, message: 'pages must not be empty (use config unset pages).' };
        parsers.pageRules(value);
        return { ok: true, value };
      case 'schemas':
        return value ? { ok: true, value: parsers.schemaRules(value) } : { ok: false, message: 'schemas must not be empty (use config unset schemas).' };
      case 'out':
        return value ? { ok: true, value } : { ok: false, message: 'out must not be empty.' };
      case 'allow-s3': {
        const roots = parseObjectRoots(value);
        return roots.length > 0 ? { ok: true, value: roots.join(';') } : { ok: false, message: 'allow-s3 must not be empty (use config unset allow-s3).' };
      }
    }
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
