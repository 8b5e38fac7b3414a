import { createHash } from 'node:crypto';
import { ApiClient, type ResponseEvent } from '../../api/index.js';
import { modelEntriesOf } from '../../api/model-names.js';
import type { ModelList } from '../../api/answers.js';
import { accountId } from '../../config/account-id.js';
import { rememberModelNames } from '../../store/model-names-cache.js';
import { USER_AGENT } from '../../util/version.js';
import type { EngineAccess } from '../one-client-run.js';
import { keyOf, type ClientSettings } from './client-options.js';

/** Where and as whom the client's runs talk to the service: its key, service, windows, state folder, and the service client. */
export function runAccess(client: ClientSettings, ttlMs: number, notice?: (message: string) => void): EngineAccess {
  const said = notice ?? client.notice;
  return {
    stateDir: client.stateDir,
    baseUrl: client.baseUrl,
    apiKey: keyOf(client),
    windows: client.windows,
    clock: client.clock,
    ttlMs,
    ...(said ? { notice: said } : {}),
    ...(client.debug ? { debug: client.debug } : {}),
    createClient: (onResponse) => serviceClient(client, onResponse),
  };
}

/**
 * The service client of `client`: its own `connect`, else one of its URL and
 * key, which keeps the model names it reads for shell completion. Without
 * `keyless`, a client given no key throws `missing_api_key` here.
 */
export function serviceClient(client: ClientSettings, onResponse?: (event: ResponseEvent) => void, keyless = false): ApiClient | Promise<ApiClient> {
  if (!keyless) keyOf(client);
  if (client.connect) return client.connect(onResponse ?? (() => undefined));
  if (client.apiKey === undefined)
    return new ApiClient({ baseUrl: client.baseUrl, userAgent: USER_AGENT, now: () => client.clock.now(), ...(client.fetch ? { fetch: client.fetch } : {}) });
  const account = accountId(client.baseUrl, client.apiKey);
  // The names a run checks are kept for shell completion, as the CLI keeps them (store/model-names-cache.ts).
  const keepModelNames = (list: ModelList): void => rememberModelNames(client.stateDir, account, modelEntriesOf(list.data.models), client.clock.now());
  return new ApiClient({
    baseUrl: client.baseUrl,
    apiKey: client.apiKey,
    userAgent: USER_AGENT,
    ...(onResponse ? { onResponse } : {}),
    onModels: keepModelNames,
    now: () => client.clock.now(),
    ...(client.fetch ? { fetch: client.fetch } : {}),
  });
}

/** The run-level terms two runs share a host on: a command whose terms differ waits to host its own run. */
export function sharedTerms(client: ClientSettings, run: ClientSettings['run']) {
  return { storeDb: run.storeDb, finalize: run.finalize, windows: JSON.stringify(client.windows), maxCredits: run.maxCredits ?? null };
}

/**
 * What identifies a forced run, so that running the same again resumes it:
 * its folder, who ran it (the CLI: its command line, `--dry-run` aside, which
 * shows what the same run would do), which run (a program's `extract` and
 * `watch` of one folder share a command name, not a forced run), its inputs
 * and its output folder.
 */
export function forceIdentity(
  client: Pick<ClientSettings, 'cwd' | 'origin'>,
  run: 'extract' | 'watch',
  inputs: readonly string[],
  outDir: string,
  listed: readonly string[] = [],
): string {
  const who = (client.origin.commandLine ?? client.origin.command).replace(/ --dry-run(?= |$)/g, '');
  // A long --files-from list is named by its digest: the identity is kept in the journal.
  const list = listed.length > 0 ? { listed: createHash('sha256').update(listed.join('\0')).digest('hex') } : {};
  return `${client.cwd}: ${who} ${JSON.stringify({ run, inputs, out: outDir, ...list })}`;
}
