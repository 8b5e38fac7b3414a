// `config set` apart from the other config commands: validating a value loads the rule parsers
// (picomatch for --model and --pages rules, the schema loader), which `config list` has no use for.
import { checkProfileName, DEFAULT_PROFILE, isKnownProfile } from '../../config/profiles.js';
import { findSetting } from '../../config/settings.js';
import { validateSettingValue } from '../../config/validate-setting.js';
import { SchemaRules } from '../../library/check.js';
import { ModelRules } from '../../library/settings.js';
import { PageRules } from '../../library/settings.js';
import { runSettings } from '../../library/settings.js';
import { redactKey } from '../../util/redact.js';
import { UsageError } from '../cli-errors.js';
import type { CliContext } from '../context.js';
import { readSecret } from '../read-secret.js';
import { loadChecker } from '../schema-settings.js';
import { requireKey } from './config.js';

export async function runConfigSet(ctx: CliContext, key: string, value: string | undefined): Promise<void> {
  const name = requireKey(key);
  let raw = value;
  if (raw === undefined) {
    if (name !== 'api-key') throw new UsageError(`config set ${name} needs a value.`);
    raw = await readSecret(ctx.io, 'API key (input hidden): ');
  }
  const checked = validateSettingValue(name, raw, {
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
