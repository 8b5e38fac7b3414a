import { configFilePath } from '../../config/config-store.js';
import { describeSource, type SettingSource } from '../../config/resolve.js';
import { DEFAULT_PROFILE, isKnownProfile, profileNames, profileSettings } from '../../config/profiles.js';
import { STORED_SETTINGS, SETTING_KEYS, findSetting, type SettingKey } from '../../config/settings.js';
import { closestNames } from '../../util/closest-names.js';
import { redactKey } from '../../util/redact.js';
import { UsageError } from '../cli-errors.js';
import type { CommandOutcome } from '../command.js';
import type { CliContext } from '../context.js';
import { formatPairs, printData } from '../output.js';

export async function runConfigGet(ctx: CliContext, key: string): Promise<CommandOutcome> {
  const setting = await effective(ctx, requireKey(key));
  printData(ctx, setting, () => setting.value ?? '');
  return setting.value === undefined ? 'work-failed' : 'success';
}

export async function runConfigUnset(ctx: CliContext, key: string): Promise<void> {
  const store = await ctx.config();
  const profile = ctx.profile.name;
  store.unset(requireKey(key), profile);
  ctx.ui.info(`removed ${key} from ${profile === DEFAULT_PROFILE ? '' : `profile "${profile}" in `}${store.path}`);
  if (!isKnownProfile(store.stored(), profile)) ctx.ui.info(`profile "${profile}" had no setting left and is removed`);
}

export async function runConfigList(ctx: CliContext): Promise<void> {
  const all = await Promise.all(STORED_SETTINGS.map((setting) => effective(ctx, setting.key)));
  const { name, source } = ctx.profile;
  if (!ctx.options.json && name !== DEFAULT_PROFILE) ctx.ui.info(`profile "${name}" (from ${source === 'flag' ? '--profile' : 'DOCEXTRACT_PROFILE'})`);
  const named = name !== DEFAULT_PROFILE;
  printData(ctx, all, () =>
    formatPairs(all.map((s) => [s.key, s.value === undefined ? '(not set)' : `${s.value}  (${describeSource(s.source, named ? s.profile : undefined)})`])),
  );
}

/** Every profile: its name, whether it is the one in use, and what it holds (the key redacted). */
export async function runConfigProfiles(ctx: CliContext): Promise<void> {
  const stored = await ctx.storedConfig();
  const selected = ctx.profile.name;
  const rows = profileNames(stored).map((name) => {
    const settings = profileSettings(stored, name);
    const key = settings['api-key'];
    // The other settings as name=value, the key aside: a bare name said that something was set, not what.
    const others = Object.keys(settings)
      .sort()
      .filter((setting) => setting !== 'api-key')
      .map((setting) => `${setting}=${String(settings[setting as keyof typeof settings])}`);
    return {
      row: {
        name,
        selected: name === selected,
        settings: Object.keys(settings).sort(),
        api_key: key ? redactKey(key) : null,
        base_url: settings['base-url'] ?? null,
      },
      others,
    };
  });
  printData(
    ctx,
    rows.map(({ row }) => row),
    () =>
      formatPairs(
        rows.map(({ row, others }) => [`${row.selected ? '*' : ' '} ${row.name}`, [row.api_key ? `key ${row.api_key}` : 'no key', ...others].join('  ')]),
      ),
  );
}

export async function runConfigPath(ctx: CliContext): Promise<void> {
  const path = configFilePath(ctx.io.env);
  printData(ctx, { path }, () => path);
}

async function effective(
  ctx: CliContext,
  key: SettingKey,
): Promise<{ key: string; value: string | undefined; source: SettingSource | undefined; profile?: string }> {
  const { value, source, profile } = await ctx.setting(key);
  const secret = findSetting(key)?.secret;
  // A stored value names its profile: the default one, unless a named profile holds it.
  const from = source === 'config' ? { profile: profile ?? DEFAULT_PROFILE } : {};
  return { key, value: value !== undefined && secret ? redactKey(value) : value, source, ...from };
}

/** The setting `key` names, or a usage error that suggests the closest. */
export function requireKey(key: string): SettingKey {
  if (!SETTING_KEYS.includes(key)) {
    const close = closestNames(key.toLowerCase(), SETTING_KEYS);
    const guess = close.length > 0 ? ` Did you mean ${close.map((name) => `"${name}"`).join(' or ')}?` : '';
    throw new UsageError(`Unknown setting "${key}".${guess} Known settings: ${SETTING_KEYS.join(', ')}.`, 'unknown_setting');
  }
  return key as SettingKey;
}
