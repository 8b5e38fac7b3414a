import { addBatchFlags, addObjectStorageFlags } from '../batch-flags.js';
import type { CommandRegistration } from '../command.js';

export const registerExtractCommand: CommandRegistration = (program, action) => {
  addObjectStorageFlags(
    addBatchFlags(
      program
        .command('extract')
        .description('extract structured JSON from PDFs and images: files, folders (recursive) and globs')
        .argument('[inputs...]', 'files, folders or globs (quote a glob to let docextract expand it), or s3://bucket/prefix/ and s3:// globs'),
    ),
  )
    .option('--verbose', 'list each file that a summary line counts (the files a Ctrl-C left unstarted)')
    .option(
      '--files-from <file>',
      'also extract the paths listed in this file (- for standard input), one a line; names are literal, never globs; s3:// addresses too',
    )
    .option('-0, --null', '--files-from is NUL-separated, as from `find ... -print0`')
    .option('--dry-run', 'list pages, credits and requests per file and the shortest possible time; send nothing')
    .option('--max-credits <n>', 'stop admitting files before this many credits would be spent')
    .option('--retry-failed', 'retry a synchronous extraction_failed once (it is charged again)')
    .option('--force', 'extract every file again, whatever results are on disk (with --dry-run: what that would cost)')
    .option('--no-dedupe', 'pay for each copy of identical files (by default identical content asking the same question is extracted once)')
    .addHelpText(
      'after',
      "\nResults are written to --out before any job is finalized. Run the same command again to resume\nafter an interruption or crash: finished files cost nothing, open jobs resume without re-upload.\n\nExamples:\n  docextract extract ./invoices/*.pdf\n  docextract extract ./inbox --out results/ --model 'ids/**=id_card' --model invoice --dry-run\n  docextract extract ./inbox --json | jq -r 'select(.status==\"complete\") | .data.invoice_number'\n  find ./inbox -name '*.pdf' -print0 | docextract extract --files-from - -0",
    )
    .action(action(() => import('../run/extract.js').then((m) => m.runExtract)));
};
