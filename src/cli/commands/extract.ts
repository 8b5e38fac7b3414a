import { addBatchFlags } from '../batch-flags.js';
import type { BatchFlags } from '../batch-settings.js';
import { UsageError } from '../cli-errors.js';
import type { CommandRegistration } from '../command.js';

interface ExtractFlags extends BatchFlags {
  dryRun?: boolean;
}

export const registerExtractCommand: CommandRegistration = (program, action) => {
  addBatchFlags(
    program
      .command('extract')
      .description('extract structured JSON from PDFs and images: files, folders (recursive) and globs')
      .argument('<inputs...>', 'files, folders or globs (quote a glob to let docextract expand it)'),
  )
    .option('--dry-run', 'list pages, credits and requests per file and the shortest possible time; send nothing')
    .option('--max-credits <n>', 'stop admitting files before this many credits would be spent')
    .option('--retry-failed', 'retry a synchronous extraction_failed once (it is charged again)')
    .addHelpText(
      'after',
      '\nResults are written to --out before any job is finalized. Run the same command again to resume\nafter an interruption or crash: finished files cost nothing, open jobs resume without re-upload.',
    )
    .action(
      action(async (ctx, inputs: string[], flags: ExtractFlags) => {
        if (inputs.length === 0) throw new UsageError('Name at least one file, folder or glob.');
        const { resolveBatchSettings } = await import('../batch-settings.js');
        const settings = await resolveBatchSettings(ctx, flags);
        const { planDocuments } = await import('../../features/plan-documents.js');
        const plan = await planDocuments(inputs, { cwd: ctx.io.cwd, outDir: settings.outDir, windows: settings.windows, ttlMs: settings.run.ttlMs, marginMs: settings.run.marginMs });
        for (const skipped of plan.skipped) ctx.ui.info(`skipped ${skipped.path}: ${skipped.reason}`);
        if (flags.dryRun) {
          const { printDryRun } = await import('../dry-run.js');
          printDryRun(ctx, plan, settings);
          return plan.rejected.length > 0 ? 'work-failed' : 'success';
        }
        if (plan.documents.length === 0 && plan.rejected.length === 0) throw new UsageError('No PDF, JPEG or PNG files found in the inputs.');
        const { runBatchCommand } = await import('../run-batch.js');
        const { runExtractBatch } = await import('../../features/extract.js');
        return runBatchCommand(ctx, settings, plan.documents.length + plan.rejected.length, plan.rejected, (deps, stop) =>
          runExtractBatch(deps, plan.documents, settings.run, settings.outDir, stop),
        );
      }),
    );
};
