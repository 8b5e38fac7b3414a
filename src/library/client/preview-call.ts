/**
 * What an extraction would do before it runs (the CLI's `--dry-run`): its
 * inputs planned as `extract` plans them, each file's cost as the run itself
 * would decide it, with what earlier runs left (results, open jobs, the
 * interrupted forced run the same run would resume, by the same
 * `forceIdentity`), and the typed document types checked (free). Sends
 * nothing that is counted; writes nothing.
 */
import type { FileCost } from '../../engine/cost-preview.js';
import type { RunPreview } from '../../engine/run-preview.js';
import { extractFilesRun } from '../extract-files-run.js';
import { AllowedFolders } from '../../files/allowed-folders.js';
import type { ClientSettings } from './client-options.js';
import type { ExtractionOptions } from './extract-options.js';
import { foundInputsOf, type PlannedExtraction } from './extract-run.js';
import { forceIdentity, serviceClient } from './run-access.js';

/** Options of {@link DocExtract.preview}: those of the extraction it previews, and where each file's cost goes. */
export interface PreviewOptions extends Pick<
  ExtractionOptions,
  'out' | 'allowedFolders' | 'model' | 'pages' | 'maxCredits' | 'storeDb' | 'force' | 'dedupe' | 'signal' | 'onFound' | 'listed' | 'outputRoom'
> {
  /** Each file's cost, a slice at a time, as soon as it is known; the next slice is planned only once the returned promise resolves. @default none */
  onCosts?: (costs: readonly FileCost[]) => void | Promise<void>;
}

/** Whether the document types typed (`model`) were checked against the service's list before the preview. */
export type ModelNamesCheck =
  | {
      /** Checked, each known to the service (or none typed). */
      checked: true;
    }
  | {
      /** Not checked: the preview went on without. */
      checked: false;
      /** `missing_api_key`: the client has no key; `models_unreadable`: the service's list could not be read. */
      code: 'missing_api_key' | 'models_unreadable';
      /** Why, in words. */
      reason: string;
    };

/** What {@link DocExtract.preview} found: the totals, the files refused, and whether the document types were checked. */
export interface ExtractionPreview extends RunPreview {
  /** Whether the typed document types were checked; an unknown one throws `unknown_model` instead. */
  models: ModelNamesCheck;
}

/** Previews the extraction of `inputs`: nothing counted is sent, nothing written. */
export async function previewCall(
  client: ClientSettings,
  inputs: readonly string[],
  options: PreviewOptions,
  planned: PlannedExtraction,
): Promise<ExtractionPreview> {
  const { cwd, stateDir, windows, clock } = client;
  const { outDir, models, pages, run } = planned;
  const reuse = { force: options.force === true, dedupe: options.dedupe !== false };
  const allowed = options.allowedFolders ? await AllowedFolders.of(options.allowedFolders, cwd) : undefined;
  const identity = forceIdentity(client, 'extract', inputs, outDir, options.listed);
  const files = await extractFilesRun({
    inputs,
    ...(options.listed ? { listed: options.listed } : {}),
    cwd,
    outDir,
    windows,
    models,
    pages,
    exclude: [stateDir],
    objects: client.objects,
    ...(client.debug ? { debug: client.debug } : {}),
    ...(allowed ? { allowed } : {}),
    run,
    reuse,
    forceCommand: identity,
    ...(options.signal ? { signal: options.signal } : {}),
    keepOutcomes: false,
    ...(options.outputRoom ? { outputRoom: options.outputRoom } : {}),
    checkTypesWith: async () => ({ api: await serviceClient(client), notice: (message) => client.notice?.(message) }),
    clock,
    ...(client.notice ? { notice: client.notice } : {}),
  });
  options.onFound?.(foundInputsOf(files));
  const checked = await checkTypedModels(client, models.names());
  const earlier = await earlierRunsOf(client, reuse.force ? identity : undefined);
  const { previewRun } = await import('../../engine/run-preview.js');
  const preview = await previewRun(
    files.planned,
    { ...reuse, ...earlier, storeDb: run.storeDb, finalize: run.finalize, now: () => clock.now(), windows },
    (costs) => options.onCosts?.(costs),
  );
  return { ...preview, models: checked };
}

/** A misspelled document type is `unknown_model` here too (the `models` call is free); without a key, or a list to read, it is said unchecked. */
async function checkTypedModels(client: ClientSettings, names: readonly string[]): Promise<ModelNamesCheck> {
  if (names.length === 0) return { checked: true };
  if (client.apiKey === undefined) return { checked: false, code: 'missing_api_key', reason: 'no API key' };
  const { checkModelNames, UnknownModelError } = await import('../../engine/check-models.js');
  const check = await checkModelNames(await serviceClient(client), names);
  if (check.ok === 'unchecked') return { checked: false, code: 'models_unreadable', reason: check.reason };
  if (!check.ok) throw new UnknownModelError(check.unknown, check.available, true);
  return { checked: true };
}

/** The results index and open jobs of the client's account, and the forced run the same run would resume; none without a key. */
async function earlierRunsOf(client: ClientSettings, forceCommand: string | undefined) {
  if (client.apiKey === undefined) return {};
  const { peekEarlierRuns } = await import('../earlier-runs.js');
  const access = { stateDir: client.stateDir, baseUrl: client.baseUrl, apiKey: client.apiKey, now: client.clock.now() };
  return peekEarlierRuns({ ...access, ...(forceCommand !== undefined ? { forceCommand } : {}) });
}
