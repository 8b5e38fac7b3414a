/**
 * `docextract/check`: results checked against schemas, as `docextract check`,
 * `extract --schema` and MCP's `read_result` check them: the schema rules and
 * their loading, a whole folder checked at once, one result file read with
 * its review, and a check problem put in words.
 */
export { checkResults, CheckInputError, type CheckedResult, type CheckSummary } from '../checks/check-results.js';
export { RecordedSchemas } from '../checks/recorded-schemas.js';
export { loadSchemaChecker, SchemaFileError } from '../checks/load-schemas.js';
export { SchemaRules, type SchemaRule } from '../checks/schema-rules.js';
export { describeProblem } from '../checks/problems.js';
export { documentTypeOf, isResultDocument } from '../checks/recheck.js';
export { readResultFile } from '../batch/result-file.js';
export { dataToCheck, readReview, type ReviewRecord, type ReviewState } from '../results/corrections.js';
export type { CheckProblem, ResultChecks, ResultDocument } from '../batch/result-file.js';
export type { ObjectResultsOptions } from '../storage/object-results.js';
export type { ObjectStoreOptions } from '../storage/object-store.js';
