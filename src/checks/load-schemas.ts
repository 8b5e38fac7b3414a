import { NotARegularFileError, readRegularFile } from '../store/owned-files.js';
import { resolve } from 'node:path';
import { DocextractError } from '../util/docextract-error.js';
import type { Options, ValidateFunction } from 'ajv';
import { SchemaChecker, type CompiledSchema } from './schema-checker.js';
import type { SchemaRules } from './schema-rules.js';
import { xSumKeyword } from './x-sum.js';

/** A schema file that cannot be used: missing, unreadable, not JSON, or not a valid JSON Schema (draft 2020-12). */
export class SchemaFileError extends DocextractError {
  /** Always `'SchemaFileError'`: tells this error apart where `instanceof` cannot (another copy of the package, a serialized error). */
  override readonly name = 'SchemaFileError';
  /** Always `invalid_schema`. */
  readonly code = 'invalid_schema';

  constructor(
    /** The file as it was named. */
    readonly file: string,
    /** What is wrong with it, in words, e.g. `no such file` or `not valid JSON (…)`. */
    readonly reason: string,
  ) {
    super(`schema ${file}: ${reason}`);
  }
}

/**
 * Read and compile every schema the rules name, before anything is sent:
 * a schema that cannot be used is an error now, not a verdict later. ajv is
 * loaded here, and only here, so a run without schemas never loads it.
 * Each file gets its own ajv instance: two files may use the same `$id`.
 */
export async function loadSchemaChecker(rules: SchemaRules, cwd: string, options: SchemaReadOptions = {}): Promise<SchemaChecker> {
  const newAjv = await ajvFactory();
  const byFile = new Map<string, ValidateFunction>();
  const byType = new Map<string, CompiledSchema>();
  for (const rule of rules.rules) {
    const schema = resolve(cwd, rule.file);
    let validate = byFile.get(schema);
    if (!validate) {
      validate = compile(newAjv, await readSchemaFile(schema, rule.file, options), rule.file);
      byFile.set(schema, validate);
    }
    byType.set(rule.type, { schema, validate });
  }
  return new SchemaChecker(byType);
}

type AjvFactory = () => { compile(schema: unknown): ValidateFunction };

async function ajvFactory(): Promise<AjvFactory> {
  const [{ Ajv2020 }, formats] = await Promise.all([import('ajv/dist/2020.js'), import('ajv-formats')]);
  const addFormats = formats.default.default;
  // allErrors: every problem at once. Unknown keywords and formats are refused (a typo such as
  // "requird" must not pass silently); type-strictness warnings would only be noise on stderr.
  const options: Options = { allErrors: true, strictSchema: true, strictTypes: false, strictTuples: false, strictRequired: false, logger: false };
  return () => {
    const ajv = new Ajv2020(options);
    addFormats(ajv);
    ajv.addKeyword(xSumKeyword);
    return ajv;
  };
}

/** The most a schema file may hold: real ones are a few KB; a larger one is refused before it is read (`/dev/zero` once read 637 MB). */
export const SCHEMA_MAX_BYTES = 4 * 1024 * 1024;

export interface SchemaReadOptions {
  /**
   * The path comes from a result file (`checks.schema`), not from the user:
   * a symbolic link there is not followed. @default false
   */
  recorded?: boolean;
}

/**
 * A schema file's JSON. Only a regular file is read (opened O_NONBLOCK and
 * judged by fstat: a FIFO never hangs `check`), within SCHEMA_MAX_BYTES.
 * Throws SchemaFileError naming the file as it was named.
 */
export async function readSchemaFile(path: string, named: string, options: SchemaReadOptions = {}): Promise<unknown> {
  let text: string;
  try {
    ({ text } = await readRegularFile(path, { noFollow: options.recorded === true, maxBytes: SCHEMA_MAX_BYTES }));
  } catch (error) {
    if (error instanceof NotARegularFileError) throw new SchemaFileError(named, error.reason);
    const code = (error as NodeJS.ErrnoException).code;
    if (options.recorded === true && (code === 'ELOOP' || code === 'EMLINK'))
      throw new SchemaFileError(named, 'is a symbolic link; a schema a result names is not followed through a link');
    throw new SchemaFileError(named, code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? String(error)})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SchemaFileError(named, `not valid JSON (${(error as Error).message})`);
  }
}

function compile(newAjv: AjvFactory, schema: unknown, named: string): ValidateFunction {
  if (typeof schema !== 'boolean' && (schema === null || typeof schema !== 'object' || Array.isArray(schema))) {
    throw new SchemaFileError(named, 'not a valid JSON Schema: a schema is a JSON object (or true/false)');
  }
  let validate: ValidateFunction;
  try {
    validate = newAjv().compile(schema);
  } catch (error) {
    throw new SchemaFileError(named, `not a valid JSON Schema (draft 2020-12): ${(error as Error).message}`);
  }
  if ((validate as { $async?: boolean }).$async === true) throw new SchemaFileError(named, 'not usable: asynchronous schemas ($async) are not supported');
  return validate;
}
