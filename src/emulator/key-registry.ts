import { randomBytes } from 'node:crypto';
import { ApiFailure } from './api-failure.js';
import type { EmulatorKeyConfig } from './types.js';

const KEY_FORMAT = /^sk_[0-9a-fA-F]{32}$/;
const DEFAULT_CREDITS = 1_000_000;

/** The mutable account state behind one key. */
export interface KeyAccount {
  key: string;
  creditsRemaining: number;
  /** null = unlimited. */
  allowedRequests: number | null;
  requestsUsed: number;
  expired: boolean;
  active: boolean;
  /** null = every template. */
  models: ReadonlySet<string> | null;
}

export function generateDemoKey(): string {
  return `sk_${randomBytes(16).toString('hex')}`;
}

export function isWellFormedKey(key: string): boolean {
  return KEY_FORMAT.test(key);
}

export class KeyRegistry {
  private readonly accounts = new Map<string, KeyAccount>();

  constructor(configs: (string | EmulatorKeyConfig)[], knownTemplates: ReadonlySet<string>) {
    for (const entry of configs) {
      const config: EmulatorKeyConfig = typeof entry === 'string' ? { key: entry } : entry;
      if (!isWellFormedKey(config.key)) throw new RangeError(`emulator key "${config.key}" is not sk_ followed by 32 hex characters`);
      for (const model of config.models ?? []) {
        if (!knownTemplates.has(model)) throw new RangeError(`key ${config.key}: unknown template "${model}"`);
      }
      this.accounts.set(config.key, {
        key: config.key,
        creditsRemaining: config.credits ?? DEFAULT_CREDITS,
        allowedRequests: config.allowedRequests ?? null,
        requestsUsed: 0,
        expired: config.expired ?? false,
        active: config.active ?? true,
        models: config.models === undefined ? null : new Set(config.models),
      });
    }
  }

  get keys(): string[] {
    return [...this.accounts.keys()];
  }

  /**
   * Resolves a presented credential to an account or throws the 401 the spec
   * names (section 5). `undefined` means no credential was presented at all.
   */
  authenticate(presented: string | undefined): KeyAccount {
    if (presented === undefined || presented === '') {
      throw new ApiFailure(401, 'invalid_api_key', 'Missing API key. Send it as "Authorization: Bearer sk_...".');
    }
    if (presented.startsWith('sk-')) {
      throw new ApiFailure(401, 'invalid_api_key', 'This looks like another provider\'s key ("sk-..."); keys for this service start with "sk_".');
    }
    if (!isWellFormedKey(presented)) {
      throw new ApiFailure(401, 'invalid_api_key', 'Malformed API key: expected "sk_" followed by 32 hexadecimal characters.');
    }
    const account = this.accounts.get(presented);
    if (account === undefined) throw new ApiFailure(401, 'invalid_api_key', 'Invalid API key.');
    if (!account.active) throw new ApiFailure(401, 'invalid_api_key', 'This API key is inactive.');
    if (account.expired) throw new ApiFailure(401, 'expired_api_key', 'This API key has expired.');
    return account;
  }
}

/** Whether the account may use a template. */
export function mayUseTemplate(account: KeyAccount, template: string): boolean {
  return account.models === null || account.models.has(template);
}
