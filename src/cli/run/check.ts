import type { CheckedResult, CheckSummary } from '../../index.js';
import { UsageError } from '../cli-errors.js';
import type { CommandOutcome } from '../command.js';
import type { CliContext } from '../context.js';
import { plural } from '../../util/plural.js';
import { checkProblemsText } from '../outcome-lines.js';
import { renderUntrusted } from '../../util/untrusted-text.js';
import { cliClient } from '../engine-access.js';
import { objectStorageOf, type ObjectStorageFlags } from '../object-storage-flags.js';
import { loadChecker, resolveSchemaRules } from '../schema-settings.js';

const GIVE_A_SCHEMA = '--schema TYPE=FILE (repeatable), or the schemas setting (docextract config set schemas invoice=schemas/invoice.json)';

/**
 * Checks result files again; never resolves the key nor touches the state
 * folder, so it runs beside an active batch. Without a schema given, each
 * result is checked with the schema it records (`checks.schema`).
 */
export async function runCheck(ctx: CliContext, resultsDir: string, flags: { schema?: string[] } & ObjectStorageFlags): Promise<CommandOutcome> {
  const rules = await resolveSchemaRules(ctx, flags.schema);
  // Without a schema given, the client checks each result with the one it records.
  const recorded = rules.isEmpty;
  const checker = recorded ? undefined : await loadChecker(ctx, rules);
  const dx = await cliClient(ctx, {}, false, { sendsNothing: true, objectStorage: objectStorageOf(ctx, flags) });
  // A folder that is not there is a CheckInputError: results_not_found, exit 2 (error-table.ts).
  const summary: CheckSummary = await dx.check(resultsDir, { ...(checker ? { checker } : {}), onResult: (checked) => printChecked(ctx, checked) });
  ctx.ui.info(summaryLine(summary, recorded));
  // Always last under --json, even when the folder holds no result: the output is never empty, so "nothing" reads apart from "broken".
  if (ctx.options.json) ctx.io.stdout.write(`${JSON.stringify({ kind: 'summary', ...summary })}\n`);
  if (summary.unusableSchemas > 0)
    throw new UsageError(
      `${plural(summary.unusableSchemas, 'result')} ${summary.unusableSchemas === 1 ? 'records' : 'record'} a schema that cannot be used now; restore it, or give one: ${GIVE_A_SCHEMA}.`,
      'invalid_schema',
    );
  if (recorded && summary.passed + summary.failed + summary.errors === 0) {
    throw new UsageError(`check needs a schema: no result in ${resultsDir} records the schema that checked it; give one: ${GIVE_A_SCHEMA}.`);
  }
  if (summary.errors > 0) return 'work-failed';
  return summary.failed > 0 ? 'checks-failed' : 'success';
}

function printChecked(ctx: CliContext, checked: CheckedResult): void {
  if (ctx.options.json) {
    const { result: _relative, verdict: _verdict, ...line } = checked;
    ctx.io.stdout.write(`${JSON.stringify(line)}\n`);
    return;
  }
  const { paint } = ctx.ui;
  // What follows the painted verdict is rendered whole: the result's name, the model it records, the data's keys.
  const said = (verdict: string, text: string): void => void ctx.io.stdout.write(`${verdict} ${renderUntrusted(text)}\n`);
  const where = `${checked.result}${checked.model ? ` (${checked.model})` : ''}${checked.reviewed ? ', as reviewed' : ''}`;
  switch (checked.verdict) {
    case 'passed':
      said(paint.green('passed   '), where);
      return;
    case 'failed':
      said(paint.red('failed   '), `${where}: checks failed: ${checkProblemsText(checked.checks?.problems ?? [])}`);
      return;
    case 'unchecked':
      said(
        paint.dim('unchecked'),
        checked.noRecordedSchema
          ? `${where}: it records no schema; give --schema ${checked.model ?? 'TYPE'}=FILE`
          : `${where}: no schema for ${checked.model ?? 'its type'}`,
      );
      return;
    case 'error':
      said(paint.red('error    '), `${checked.error?.message ?? checked.result} (${checked.error?.code ?? ''})`);
  }
}

function summaryLine(summary: CheckSummary, recorded: boolean): string {
  const parts = [`${summary.passed} passed`, `${summary.failed} failed checks`];
  if (summary.unchecked) parts.push(`${summary.unchecked} without a ${recorded ? 'recorded ' : ''}schema`);
  if (summary.errors) parts.push(`${summary.errors} could not be checked`);
  if (summary.skipped) parts.push(`${summary.skipped} other JSON ${summary.skipped === 1 ? 'file' : 'files'} skipped`);
  return `${summary.results} ${summary.results === 1 ? 'result' : 'results'}: ${parts.join(', ')} · nothing sent`;
}
