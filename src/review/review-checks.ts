import type { ResultChecker } from '../batch/batch-types.js';
import type { ResultChecks, ResultDocument } from '../batch/result-file.js';
import { documentTypeOf } from '../checks/recheck.js';
import { loadSchemaChecker, readSchemaFile } from '../checks/load-schemas.js';
import { SchemaRules } from '../checks/schema-rules.js';
import { isObject, segmentsOf } from '../results/field-paths.js';

/**
 * Checks a result's data as a person corrects it: with the schema given for
 * its type (`--schema`, the `schemas` setting), else with the schema its
 * result file says it was checked with, when that file is still there.
 * Without either, nothing is checked.
 */
export class ReviewChecks {
  private readonly bySchemaFile = new Map<string, Promise<{ checker: ResultChecker; schema: unknown } | undefined>>();

  constructor(
    private readonly configured: ResultChecker | undefined,
    private readonly cwd: string,
  ) {}

  async check(result: Partial<ResultDocument>, data: unknown): Promise<ResultChecks | undefined> {
    const type = documentTypeOf(result);
    const configured = this.configured?.check(type, data);
    if (configured) return configured;
    const recorded = await this.recorded(result, type);
    return recorded?.checker.check(type, data);
  }

  /** The JSON Schema that judges a result (to type a value typed into a new field), if any. */
  async schemaFor(result: Partial<ResultDocument>, checks: ResultChecks | undefined): Promise<unknown> {
    const file = checks?.schema ?? result.checks?.schema;
    if (!file) return undefined;
    return (await this.load(file, documentTypeOf(result)))?.schema;
  }

  private recorded(result: Partial<ResultDocument>, type: string): Promise<{ checker: ResultChecker; schema: unknown } | undefined> {
    const file = result.checks?.schema;
    return file ? this.load(file, type) : Promise.resolve(undefined);
  }

  private load(file: string, type: string): Promise<{ checker: ResultChecker; schema: unknown } | undefined> {
    const key = `${type}\0${file}`;
    let loaded = this.bySchemaFile.get(key);
    if (!loaded) {
      loaded = (async () => {
        try {
          const schema = await readSchemaFile(file, file, { recorded: true });
          return { checker: await loadSchemaChecker(SchemaRules.parse([`${type}=${file}`]), this.cwd, { recorded: true }), schema };
        } catch {
          return undefined; // gone or broken since: the result is shown with the verdict it has
        }
      })();
      this.bySchemaFile.set(key, loaded);
    }
    return loaded;
  }
}

/** The `type` a schema gives the value at a dotted path (properties, items, prefixItems), when it says. */
export function schemaTypeAt(schema: unknown, path: string): string | undefined {
  let node: unknown = schema;
  for (const segment of segmentsOf(path) ?? []) {
    if (!isObject(node)) return undefined;
    const properties = node.properties;
    if (/^\d+$/.test(segment)) node = Array.isArray(node.prefixItems) ? (node.prefixItems[Number(segment)] ?? node.items) : node.items;
    else node = isObject(properties) ? properties[segment] : undefined;
  }
  if (!isObject(node)) return undefined;
  const type = Array.isArray(node.type) ? node.type.find((t) => t !== 'null') : node.type;
  return typeof type === 'string' ? type : undefined;
}
