import { accountId } from '../config/account-id.js';
import { readDeclaredRateLimit, rememberDeclaredRateLimit } from '../library/settings.js';
import type { CliContext } from './context.js';

/** The `rate-limit` a command runs with, and, once its text is known good, keeping it for the key. */
export interface KeyRateLimit {
  spec: string;
  /** Remember a declared spec for the key (nothing to do for one that was remembered or the default). */
  keep(): void;
}

/**
 * The windows belong to the key (issue 52): a rate limit declared by flag,
 * environment or profile is the one used, and is remembered for the key in
 * the state folder (beside its send log); with none declared, the one last
 * declared for the key, else the default. So `docextract collect <id>`,
 * pasted alone after `extract --rate-limit 3/1s`, plans under 3/1s.
 */
export async function keyRateLimit(ctx: CliContext, flag: string | undefined): Promise<KeyRateLimit> {
  const declared = await ctx.setting('rate-limit', flag);
  const account = await accountOf(ctx);
  const spec = declared.value ?? '';
  if (declared.source === 'flag' || declared.source === 'env' || declared.source === 'config') {
    return {
      spec,
      keep: () => {
        if (account === undefined) return;
        try {
          rememberDeclaredRateLimit(ctx.stateDir(), account, spec, ctx.clock.now());
        } catch {
          // A state folder that cannot be written is refused, in its own words, by the run that opens it.
        }
      },
    };
  }
  const remembered = account === undefined ? undefined : readDeclaredRateLimit(ctx.stateDir(), account);
  return { spec: remembered ?? spec, keep: () => undefined };
}

/** The account of the key and service this command runs on; none without a usable key (a dry run needs none). */
async function accountOf(ctx: CliContext): Promise<string | undefined> {
  try {
    return accountId(await ctx.baseUrl(), (await ctx.apiKey()).key);
  } catch {
    return undefined;
  }
}
