/** `docextract/usage`: what the runs of a state folder spent, read from its usage record and grouped. */
export { readUsage, type UsageQuery } from '../usage/read-usage.js';
export { parseSince, USAGE_GROUPINGS, type UsageGrouping, type UsageReport, type UsageRow, type WindowUse } from '../usage/usage-report.js';
