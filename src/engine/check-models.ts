import { DocextractError } from '../util/docextract-error.js';
import type { ApiClient } from '../api/client.js';
import type { BatchEvents, PlannedDocument } from '../batch/batch-types.js';
import { SERVICE_DEFAULT_MODEL } from '../batch/question.js';
import type { ModelRules } from './model-rules.js';
import { AuthenticationError } from '../api/errors.js';
import { modelNameOf } from '../api/model-names.js';
import { closestNames } from '../util/closest-names.js';

/**
 * Some document types a run would send are not among those the key may use
 * (checked for free against `models` before anything counted is sent):
 * nothing was sent. Fix the names, or ask the service for model access.
 */
export class UnknownModelError extends DocextractError {
  /** Always `'UnknownModelError'`. */
  override readonly name = 'UnknownModelError';
  /** Always `unknown_model`, as the service would have answered each file. */
  readonly code = 'unknown_model';
  constructor(
    /** Each name the key may not use, with the closest names it may. */
    readonly unknown: readonly UnknownModel[],
    /** Every document type the key may use; empty when it has no model access. */
    readonly available: readonly string[],
    /** False when no document type was asked for and the service's default is the unknown one. */
    named: boolean,
  ) {
    const sentences = unknown.map(({ name, closest }) => {
      const what = named ? `unknown document type "${name}"` : `no --model was given, and the service's default "${name}" is not available to this key`;
      return closest.length > 0 ? `${what}; did you mean ${closest.map((c) => `"${c}"`).join(' or ')}?` : `${what}.`;
    });
    const list = available.length > 0 ? `This key may use: ${available.join(', ')}.` : 'This key has no document types (ask the service for model access).';
    // One line, as every message: a terminal shows it rendered whole, where a newline in a name the service sent is shown, not obeyed.
    super(`${sentences.join(' ')} Nothing was sent. ${list}`);
  }
}

/** A document type the key may not use. */
export interface UnknownModel {
  /** The name as the run would send it. */
  name: string;
  /** Closest names the key may use, best first. */
  closest: string[];
}

export type ModelCheck =
  | { ok: true; available: string[] }
  | { ok: false; unknown: UnknownModel[]; available: string[] }
  /** `models` could not answer, or answered in a shape whose names cannot be read: the run goes on unchecked. */
  | { ok: 'unchecked'; reason: string };

/**
 * Check template names against `models`, which costs no credit and counts
 * against no window (spec §4.4), before anything counted is sent: a typo in
 * `--model` would otherwise be answered `unknown_model` once per file, each
 * answer a counted request. A rejected key is thrown as it is; any other
 * failure leaves the names unchecked (an unreachable service is then stopped
 * by the run's keyless warm-up, before anything counted is sent).
 */
export async function checkModelNames(api: ApiClient, names: readonly string[]): Promise<ModelCheck> {
  if (names.length === 0) return { ok: true, available: [] };
  let items: unknown[];
  try {
    items = (await api.models()).data.models;
  } catch (error) {
    if (error instanceof AuthenticationError) throw error;
    return { ok: 'unchecked', reason: `the service's model list could not be read (${error instanceof Error ? error.message : String(error)})` };
  }
  const available = items.map(modelNameOf).filter((name): name is string => name !== undefined);
  if (available.length < items.length) return { ok: 'unchecked', reason: 'the service lists models in a shape whose names docextract cannot read' };
  const known = new Set(available.map((name) => name.trim().toLowerCase()));
  const unknown = names.filter((name) => !known.has(name)).map((name) => ({ name, closest: closestNames(name, available) }));
  return unknown.length === 0 ? { ok: true, available } : { ok: false, unknown, available };
}

/** The free check of `names` against `models`; `asked`: the user named a model (else only the service's default is sent). */
export async function checkModelNamesBeforeSending(
  deps: { api: ApiClient; events: Pick<BatchEvents, 'notice'> },
  names: readonly string[],
  asked: boolean,
): Promise<void> {
  if (names.length === 0) return;
  const check = await checkModelNames(deps.api, [...names]);
  if (check.ok === 'unchecked') deps.events.notice?.(`${check.reason}; the document types were not checked before sending`);
  else if (!check.ok) throw new UnknownModelError(check.unknown, check.available, asked);
}

/** What `checkModelNamesBeforeSending` checks for documents about to be submitted: the names the user typed, else each document's (the service's default when none). */
export function modelsToCheck(typed: readonly string[], documents: readonly Pick<PlannedDocument, 'model'>[]): [names: readonly string[], asked: boolean] {
  if (typed.length > 0) return [typed, true];
  return [[...new Set(documents.map((doc) => doc.model ?? SERVICE_DEFAULT_MODEL))], false];
}

/** What to check for files still to arrive under `rules` (watch, a stream): every type the rules name, and the service's default when no rule is the default. */
export function modelsOfRules(rules: Pick<ModelRules, 'names' | 'fallback' | 'isEmpty'>): [names: readonly string[], asked: boolean] {
  const names = rules.names();
  if (rules.fallback === undefined) names.push(SERVICE_DEFAULT_MODEL);
  return [names, !rules.isEmpty];
}
