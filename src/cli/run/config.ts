import { configFilePath } from '../../config/config-store.js';
import { describeSource, type SettingSource } from '../../config/resolve.js';
import { checkProfileName, DEFAULT_PROFILE, isKnownProfile, profileNames, profileSettings } from '../../config/profiles.js';
import { SETTINGS, SETTING_KEYS, findSetting, type SettingKey } from '../../config/settings.js';
import { validateSettingValue } from '../../config/validate-setting.js';
import { parseRateWindows, runSettings } from '../../library/settings.js';
import { parseDuration } from '../../util/duration.js';
import { ModelRules } from '../../features/model-rules.js';
import { PageRules } from '../../features/page-rules.js';
import { SchemaRules } from '../../features/checks/schema-rules.js';
import { loadChecker } from '../schema-settings.js';
import { closestNames } from '../../util/closest-names.js';
import { redactKey } from '../../util/redact.js';
import { UsageError } from '../cli-errors.js';
import type { CommandOutcome } from '../command.js';
import type { CliContext } from '../context.js';
import { formatPairs, printData } from '../output.js';
import { readSecret } from '../read-secret.js';

export async function runConfigSet(ctx: CliContext, key: string, value: string | undefined): Promise<void> {
  const name = requireKey(key);
  let raw = value;
  if (raw === undefined) {
    if (name !== 'api-key') throw new UsageError(`config set ${name} needs a value.`);
    raw = await readSecret(ctx.io, 'API key (input hidden): ');
  }
  const checked = validateSettingValue(name, raw, {
    rateLimit: parseRateWindows,
    duration: parseDuration,
    modelRules: ModelRules.parseList,
    pageRules: PageRules.parseList,
    // Stored absolute, so the setting means the same files from any folder.
    schemaRules: (spec) => SchemaRules.parseList(spec).toList(ctx.io.cwd),
    runSetting: (field, value) => void runSettings({ [field]: value }),
  });
  if (!checked.ok) throw new UsageError(`Invalid ${name}: ${checked.message}`, 'invalid_setting');
  // A schema that cannot be used fails here, not at the next batch.
  if (name === 'schemas') await loadChecker(ctx, SchemaRules.parseList(checked.value));
  const profile = ctx.profile.name;
  const profileName = checkProfileName(profile);
  if (!profileName.ok) throw new UsageError(profileName.message, 'invalid_profile_name');
  const store = await ctx.config();
  const isNew = !isKnownProfile(store.stored(), profile);
  store.set(name, checked.value, profile);
  const shown = name === 'api-key' ? redactKey(checked.value) : checked.value;
  if (isNew) ctx.ui.info(`new profile "${profile}"; its unset settings are the default profile's`);
  ctx.ui.info(`${name} = ${shown} (saved to ${profile === DEFAULT_PROFILE ? '' : `profile "${profile}" in `}${store.path})`);
  // The environment wins over the config file: a stored value it overrides is not the one in use.
  const env = findSetting(name)?.env;
  if (env && ctx.io.env[env] !== undefined && ctx.io.env[env] !== '') {
    ctx.ui.warn(`${env} is set in the environment and overrides this value; unset it (unset ${env}) for the stored one to be used`);
  }
}

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
  const all = await Promise.all(SETTINGS.map((setting) => effective(ctx, setting.key)));
  const { name, source } = ctx.profile;
  if (!ctx.options.json && name !== DEFAULT_PROFILE) ctx.ui.info(`profile "${name}" (from ${source === 'flag' ? '--profile' : 'DOCEXTRACT_PROFILE'})`);
  const named = name !== DEFAULT_PROFILE;
  printData(ctx, all, () => formatPairs(all.map((s) => [s.key, s.value === undefined ? '(not set)' : `${s.value}  (${describeSource(s.source, named ? s.profile : undefined)})`])));
}

/** Every profile: its name, whether it is the one in use, and what it holds (the key redacted). */
export async function runConfigProfiles(ctx: CliContext): Promise<void> {
  const stored = await ctx.storedConfig();
  const selected = ctx.profile.name;
  const rows = profileNames(stored).map((name) => {
    const settings = profileSettings(stored, name);
    const key = settings['api-key'];
    return { name, selected: name === selected, settings: Object.keys(settings).sort(), api_key: key ? redactKey(key) : null, base_url: settings['base-url'] ?? null };
  });
  printData(ctx, rows, () =>
    formatPairs(rows.map((row) => [`${row.selected ? '*' : ' '} ${row.name}`, [row.api_key ? `key ${row.api_key}` : 'no key', row.base_url ?? '', row.settings.filter((key) => key !== 'api-key' && key !== 'base-url').join(', ')].filter(Boolean).join('  ')])),
  );
}

export async function runConfigPath(ctx: CliContext): Promise<void> {
  const path = configFilePath(ctx.io.env);
  printData(ctx, { path }, () => path);
}

async function effective(ctx: CliContext, key: SettingKey): Promise<{ key: string; value: string | undefined; source: SettingSource | undefined; profile?: string }> {
  const { value, source, profile } = await ctx.setting(key);
  const secret = findSetting(key)?.secret;
  // A stored value names its profile: the default one, unless a named profile holds it.
  const from = source === 'config' ? { profile: profile ?? DEFAULT_PROFILE } : {};
  return { key, value: value !== undefined && secret ? redactKey(value) : value, source, ...from };
}

function requireKey(key: string): SettingKey {
  if (!SETTING_KEYS.includes(key)) {
    const close = closestNames(key.toLowerCase(), SETTING_KEYS);
    const guess = close.length > 0 ? ` Did you mean ${close.map((name) => `"${name}"`).join(' or ')}?` : '';
    throw new UsageError(`Unknown setting "${key}".${guess} Known settings: ${SETTING_KEYS.join(', ')}.`, 'unknown_setting');
  }
  return key as SettingKey;
}
