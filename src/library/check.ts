/**
 * `docextract/check`: results checked against schemas, as `docextract check`,
 * `extract --schema` and MCP's `read_result` check them: the schema rules and
 * their loading, a whole folder checked at once, one result file read with
 * its review, and a check problem put in words.
 */
export { checkResults, CheckInputError, type CheckedResult, type CheckSummary } from '../features/checks/check-results.js';
export { RecordedSchemas } from '../features/checks/recorded-schemas.js';
export { loadSchemaChecker, SchemaFileError } from '../features/checks/load-schemas.js';
export { SchemaRules, type SchemaRule } from '../features/checks/schema-rules.js';
export { describeProblem } from '../features/checks/problems.js';
export { documentTypeOf, isResultDocument } from '../features/checks/recheck.js';
export { readResultFile } from '../batch/result-file.js';
export { dataToCheck, readReview, type ReviewRecord, type ReviewState } from '../features/review/corrections.js';
export type { CheckProblem, ResultChecks, ResultDocument } from '../batch/result-file.js';
