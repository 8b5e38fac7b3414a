import { ApiFailure } from './api-failure.js';
import { type KeyAccount, mayUseTemplate } from './key-registry.js';
import { TEMPLATE_NAMES } from './templates.js';

export interface ExtractOptions {
  /** The prompt template (document type). */
  model: string;
  storeDb: boolean;
}

const DEFAULT_TEMPLATE = 'invoice';

function invalidOptions(message: string): ApiFailure {
  return new ApiFailure(400, 'invalid_options', message);
}

/**
 * Parses the `options` form field (section 2.1): a JSON object; unknown keys
 * ignored; `model` or its synonym `document_type`, lowercased and trimmed,
 * default `invoice`. A template the service lacks, or that the key may not
 * use, is unknown_model.
 */
export function parseExtractOptions(text: string | undefined, account: KeyAccount): ExtractOptions {
  let parsed: unknown = {};
  if (text !== undefined) {
    try {
      parsed = JSON.parse(text);
    } catch {
      throw invalidOptions('options must be a JSON-encoded object, e.g. {"model":"invoice"}.');
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidOptions('options must be a JSON object.');
  }
  const fields = parsed as Record<string, unknown>;
  const rawModel = fields.model ?? fields.document_type;
  if (rawModel !== undefined && typeof rawModel !== 'string') throw invalidOptions('options.model / options.document_type must be a string.');
  if (fields.store_db !== undefined && typeof fields.store_db !== 'boolean') throw invalidOptions('options.store_db must be a boolean.');

  const model = rawModel === undefined ? DEFAULT_TEMPLATE : rawModel.trim().toLowerCase();
  if (!TEMPLATE_NAMES.has(model) || !mayUseTemplate(account, model)) {
    throw new ApiFailure(400, 'unknown_model', `Unknown template "${model}". List the templates this key may use with GET /v3.1/models.`, { model });
  }
  return { model, storeDb: fields.store_db === true };
}
