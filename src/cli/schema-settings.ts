import type { ResultChecker } from '../index.js';
import { SchemaRules } from '../library/check.js';
import { UsageError } from './cli-errors.js';
import type { CliContext } from './context.js';

/**
 * The checker of a run's results: `--schema` values replace the `schemas`
 * setting (flag > environment > config). Every schema file is read and
 * compiled now, before anything is sent; one that cannot be used is a usage
 * error naming it. Undefined without schemas: ajv is then never loaded.
 */
export async function resolveResultChecker(ctx: CliContext, flagValues: readonly string[] | undefined): Promise<ResultChecker | undefined> {
  const rules = await resolveSchemaRules(ctx, flagValues);
  return rules.isEmpty ? undefined : loadChecker(ctx, rules);
}

export async function resolveSchemaRules(ctx: CliContext, flagValues: readonly string[] | undefined): Promise<SchemaRules> {
  if (flagValues && flagValues.length > 0) return parsedRules('--schema', () => SchemaRules.parse(flagValues));
  const configured = (await ctx.setting('schemas')).value;
  return configured ? parsedRules('schemas (config or DOCEXTRACT_SCHEMAS)', () => SchemaRules.parseList(configured)) : SchemaRules.none();
}

export async function loadChecker(ctx: CliContext, rules: SchemaRules): Promise<ResultChecker> {
  // A schema that cannot be used is a SchemaFileError: invalid_schema, exit 2 (error-table.ts).
  const { loadSchemaChecker } = await import('../library/check.js');
  return loadSchemaChecker(rules, ctx.io.cwd);
}

function parsedRules(flag: string, parse: () => SchemaRules): SchemaRules {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(`${flag}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
