import type { ResultChecker } from '../batch/batch-types.js';
import { loadSchemaChecker, SchemaFileError } from './load-schemas.js';
import { SchemaRules } from './schema-rules.js';

/**
 * The schemas results record (`checks.schema`, the file that checked them),
 * for `docextract check` without `--schema`: each file is read and compiled
 * once per document type, however many results name it. One that is gone or
 * broken since is a SchemaFileError, for the results that name it only.
 * A path read from a result is opened only as a regular file, not through
 * a link, and within a size cap (readSchemaFile).
 */
export class RecordedSchemas {
  private readonly loaded = new Map<string, Promise<ResultChecker | SchemaFileError>>();

  constructor(private readonly cwd: string) {}

  /** A checker of `documentType` with the recorded `schema` file, or why that file cannot be used. */
  checkerFor(schema: string, documentType: string): Promise<ResultChecker | SchemaFileError> {
    const key = `${documentType}\0${schema}`;
    let checker = this.loaded.get(key);
    if (!checker) {
      checker = loadSchemaChecker(SchemaRules.parse([`${documentType}=${schema}`]), this.cwd, { recorded: true }).catch((error: unknown) => {
        if (error instanceof SchemaFileError) return error;
        throw error;
      });
      this.loaded.set(key, checker);
    }
    return checker;
  }
}
