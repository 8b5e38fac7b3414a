import { errorCodeOf } from '../../util/docextract-error.js';
import { ApiError, AuthenticationError, MethodNotAllowedError, NotFoundError, TransportError } from '../../api/index.js';
import { DEFAULT_PROFILE } from '../../config/profiles.js';
import { describeSource } from '../../config/resolve.js';
import { redactKey } from '../../util/redact.js';
import type { CliContext } from '../context.js';
import { cliClient } from '../engine-access.js';
import { formatPairs, printData } from '../output.js';

export async function runWhoami(ctx: CliContext): Promise<void> {
  const { key, source, profile: keyProfile } = await ctx.apiKey();
  const dx = await cliClient(ctx, {}, false);
  const profile = ctx.profile;
  const identity = { profile: profile.name, key: redactKey(key), source, base_url: dx.baseUrl };
  const named = profile.name !== DEFAULT_PROFILE;
  const keyFrom = describeSource(source, named ? keyProfile : undefined);
  try {
    const answer = await dx.whoami();
    printData(ctx, { ok: true, ...identity, data: answer.data }, () =>
      formatPairs([
        ['profile', named ? `${profile.name} (from ${profile.source === 'flag' ? '--profile' : 'DOCEXTRACT_PROFILE'})` : DEFAULT_PROFILE],
        ['key', `${identity.key} (from ${keyFrom})`],
        ['status', 'active: the service accepted this key'],
        ['service', dx.baseUrl],
        // Not in the spec (its data is "not shown"): said when the service gives a count, as the emulator does; --json has all of data.
        ...creditsLeft(answer.data),
      ]),
    );
  } catch (error) {
    ctx.ui.error(`key ${identity.key} from ${keyFrom}: ${whatWentWrong(error, dx.baseUrl)}`);
    throw error;
  }
}

function creditsLeft(data: Record<string, unknown> | undefined): [string, string][] {
  const left = data?.credits_remaining;
  return typeof left === 'number' && Number.isFinite(left) ? [['credits', `${left} left`]] : [];
}

/** Rejected means 401 and nothing else: a service that cannot be reached, or is not the service, says nothing of the key. */
function whatWentWrong(error: unknown, baseUrl: string): string {
  if (error instanceof AuthenticationError) return `rejected by ${baseUrl} (${error.code})`;
  if (error instanceof TransportError && error.neverConnected) return `not checked: cannot reach ${baseUrl} (${errorCodeOf(error)}: ${error.message})`;
  if (error instanceof TransportError) return `not checked: ${baseUrl} did not answer usably (${errorCodeOf(error)})`;
  if (error instanceof NotFoundError || error instanceof MethodNotAllowedError)
    return `not checked: ${baseUrl} answered ${error.status} for /v3.1/authorised; is it the service's address (docextract config set base-url)?`;
  if (error instanceof ApiError) return `not checked: ${baseUrl} answered ${error.status} ${error.code}`;
  return `not checked (${errorCodeOf(error)})`;
}
