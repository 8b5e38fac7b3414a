import type { ValidateFunction } from 'ajv';
import type { ResultChecker } from '../batch/batch-types.js';
import type { ResultChecks } from '../batch/result-file.js';
import { problemsOf } from './problems.js';

/** A compiled schema and the file it came from. */
export interface CompiledSchema {
  /** Absolute path of the schema file. */
  schema: string;
  validate: ValidateFunction;
}

/**
 * Checks result data against the schema of its document type: synchronous,
 * local, free. Made by `loadSchemaChecker`; a type without a schema is not
 * checked (undefined), which is not the same as passing.
 */
export class SchemaChecker implements ResultChecker {
  constructor(private readonly byType: ReadonlyMap<string, CompiledSchema>) {}

  /** The document types that have a schema. */
  get types(): string[] {
    return [...this.byType.keys()];
  }

  check(documentType: string, data: unknown): ResultChecks | undefined {
    const compiled = this.byType.get(documentType);
    if (!compiled) return undefined;
    const passed = compiled.validate(data) === true;
    return { schema: compiled.schema, passed, problems: passed ? [] : problemsOf(compiled.validate.errors) };
  }
}
