import { addObjectStorageFlags } from '../batch-flags.js';
import type { CommandRegistration } from '../command.js';

export const registerReviewCommand: CommandRegistration = (program, action) => {
  addObjectStorageFlags(
    program
      .command('review')
      .description('a local page to look at each document beside its fields, correct them and approve; sends nothing')
      .argument(
        '<results-dir>',
        'the folder docextract wrote results to (searched recursively for *.json), or an s3://bucket/prefix/ (corrections saved there)',
      ),
  )
    .option(
      '--schema <type=file>',
      'a JSON Schema (draft 2020-12) for a document type, e.g. invoice=schemas/invoice.json; repeatable (config: schemas); without one, a result is checked with the schema it was checked with',
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--open', 'open the page in the browser (xdg-open)', false)
    .option('--port <port>', 'the port on 127.0.0.1 (default: a free one)')
    .addHelpText(
      'after',
      "\nPrints the page's URL on stdout: 127.0.0.1 only, with a secret token in it (share it as you would a password).\nThe page lists the documents that failed their checks first, then partial ones; shows each beside its\nfields (keys: j/k next/previous, Ctrl+S save, a approve). A correction is saved beside its result in\n<result>.review.json (the service's result is never changed) and checked at once; export and check use it.\nRuns until Ctrl-C.\n\nExamples:\n  docextract review ./docextract-out --open\n  docextract review ./docextract-out --schema invoice=schemas/invoice.json",
    )
    .action(action(() => import('../run/review.js').then((m) => m.runReview)));
};
