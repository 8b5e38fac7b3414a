import { addObjectStorageFlags } from '../batch-flags.js';
import type { CommandRegistration } from '../command.js';

export const registerCheckCommand: CommandRegistration = (program, action) => {
  addObjectStorageFlags(
    program
      .command('check')
      .description('check the results on disk again against the schemas of their document types, and save each verdict in its file; sends nothing')
      .argument('<results-dir>', 'the folder docextract wrote results to (searched recursively for *.json), or an s3://bucket/prefix/'),
  )
    .option(
      '--schema <type=file>',
      'a JSON Schema (draft 2020-12) for a document type, e.g. invoice=schemas/invoice.json; repeatable (config: schemas)',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .addHelpText(
      'after',
      "\nUse it after changing a schema: each result file's \"checks\" field is rewritten (atomically) when its verdict\nchanged; results of a type without a schema are left as they are. Without --schema (and the schemas setting),\neach result is checked with the schema it records (checks.schema); one that records none is reported unchecked.\nNeeds no key and sends no request.\nExit 0 when every checked result passed, 5 when some failed their checks, 1 when a file could not be\nread or written, 2 for a schema that cannot be used or when no result could be checked.\n\nExamples:\n  docextract check ./docextract-out\n  docextract check ./docextract-out --schema invoice=schemas/invoice.json\n  docextract check ./docextract-out --json | jq -r 'select(.checks.passed == false) | .output'",
    )
    .action(action(() => import('../run/check.js').then((m) => m.runCheck)));
};
