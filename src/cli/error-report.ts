import { CommanderError } from 'commander';
import { ApiError, AuthenticationError, ProxyAuthRequiredError } from '../api/index.js';
import { DocextractError } from '../util/docextract-error.js';
import { CliError } from './cli-errors.js';
import type { ResolvedSetting, SettingSource } from '../config/resolve.js';
import { DEFAULT_PROFILE, type ProfileSelection } from '../config/profiles.js';
import { shellQuote } from '../util/shell-quote.js';
import { outcomeOfCode } from './error-table.js';
import type { ExitCodeValue } from './exit-codes.js';

export interface ErrorReport {
  exitCode: ExitCodeValue;
  code: string;
  message: string;
  hint?: string;
  status?: number;
}

/** What the report may say of where things came from. */
export interface ErrorSetting {
  /** Where the API key came from: a hint to fix it must name the place that wins. */
  keySource?: SettingSource;
  /** With keySource `config`: the profile that holds the key (the one in use, or the default one it falls back to). */
  keyProfile?: string;
  /** The profile in use (--profile or DOCEXTRACT_PROFILE), when it is not the default one. */
  profile?: string;
}

/**
 * THE place where an error becomes an exit code and a message: the code the
 * error carries, looked up in the error table (error-table.ts). Anything that
 * is not one of docextract's errors is a bug: `internal_error`.
 */
export function describeError(error: unknown, setting: ErrorSetting = {}): ErrorReport {
  // commander's own refusals (an unknown option, a missing argument) are usage errors.
  const code = error instanceof CommanderError ? 'usage_error' : error instanceof DocextractError ? error.code : 'internal_error';
  const raw = error instanceof Error ? error.message : String(error);
  const message = error instanceof CommanderError ? raw.replace(/^error: /, '') : raw;
  const { exit, hint } = outcomeOfCode(code);
  const status = error instanceof ApiError || error instanceof ProxyAuthRequiredError ? error.status : undefined;
  const ownHint = (error instanceof CliError ? error.hint : undefined) ?? (error instanceof AuthenticationError ? keyHint(code, setting) : undefined);
  const shown = ownHint ?? hint;
  return { exitCode: exit, code, message, ...(shown ? { hint: shown } : {}), ...(status === undefined ? {} : { status }) };
}

/**
 * A rejected key is fixed where it came from: `config set api-key` does
 * nothing while DOCEXTRACT_API_KEY or --api-key overrides the stored key,
 * and stores the default profile's key while a named profile's is the one
 * sent (or DOCEXTRACT_PROFILE's, which the shell the hint is pasted in may
 * not have): under a named profile the command names it.
 */
function keyHint(code: string, { keySource, keyProfile, profile }: ErrorSetting): string | undefined {
  const what = code === 'expired_api_key' ? 'The key has expired; use a new one' : 'Check the key ("sk_" + 32 hex characters)';
  const setKey = (name: string | undefined): string =>
    name === undefined ? 'docextract config set api-key' : `docextract --profile ${shellQuote(name)} config set api-key`;
  if (keySource === 'env')
    return `${what}: it comes from DOCEXTRACT_API_KEY, which overrides the stored key. Set DOCEXTRACT_API_KEY to the right key, or unset it to use the one from ${setKey(profile)}.`;
  if (keySource === 'flag') return `${what}: it comes from --api-key on the command line.`;
  if (keySource !== 'config' || profile === undefined) return undefined;
  if (keyProfile === DEFAULT_PROFILE)
    return `${what}: profile "${profile}" has no key of its own and uses the default profile's. Give it its own: ${setKey(profile)}; or change the default one: ${setKey(DEFAULT_PROFILE)}`;
  return `${what}: it is profile "${profile}"'s key. Change it: ${setKey(profile)}`;
}

/** What keySettingOf reads of the command's context (CliContext). */
export interface KeySettingSource {
  setting(key: 'api-key'): Promise<ResolvedSetting>;
  readonly profile: ProfileSelection;
}

/** Where the key came from, and under which profile, for the hint to fix a rejected one; nothing when that cannot be told. */
export async function keySettingOf(ctx: KeySettingSource): Promise<ErrorSetting> {
  const resolved = await ctx.setting('api-key').catch(() => undefined);
  if (!resolved?.source) return {};
  const { name } = ctx.profile;
  return {
    keySource: resolved.source,
    ...(resolved.profile === undefined ? {} : { keyProfile: resolved.profile }),
    ...(name === DEFAULT_PROFILE ? {} : { profile: name }),
  };
}
