import { formatRateWindows } from '../library/settings.js';
import type { FileCost, ObjectFigures, RunPreview } from '../index.js';
import { formatDuration } from '../util/duration.js';
import { plural } from '../util/plural.js';
import type { BatchSettings } from './batch-settings.js';
import type { CliContext } from './context.js';
import { wordedForCli } from './outcome-words.js';
import { writeInTurn } from './io.js';
import { renderLines } from './output.js';
import { renderUntrusted } from '../util/untrusted-text.js';

/**
 * Prints a dry run (the client's `preview`) as it goes: each file's line as
 * its slice is planned (the JSON too, one document written in pieces; begun
 * only with the first line, so a preview refused first prints nothing), then
 * the refused files and the totals. A slow reader holds the next slice back:
 * what it has not taken is not queued here.
 */
export function dryRunPrinter(ctx: CliContext): {
  costs: (costs: readonly FileCost[]) => Promise<void>;
  finish: (preview: RunPreview, windows: BatchSettings['windows']) => void;
} {
  const json = ctx.options.json;
  const out = ctx.io.stdout;
  let printed = 0;
  let begun = false;
  const begin = (): string => {
    if (!json || begun) return '';
    begun = true;
    return '{"files":[';
  };
  return {
    costs: async (costs) => {
      let text = begin();
      for (const f of costs) text += json ? `${printed++ > 0 ? ',' : ''}${JSON.stringify(f)}` : `${costLine(f)}\n`;
      await writeInTurn(out, text);
    },
    finish: ({ total, shortestMs, refused, objects }, windows) => {
      const rejected = refused.map((outcome) => wordedForCli(outcome, ctx.suggestedFlags())).map((outcome) => ({ file: outcome.file, error: outcome.error }));
      if (json) {
        const read = objects ? `,"objects":${JSON.stringify(objects)}` : '';
        out.write(`${begin()}],"rejected":${JSON.stringify(rejected)},"total":${JSON.stringify({ ...total, shortest_time_ms: shortestMs })}${read}}\n`);
        return;
      }
      const lines = rejected.map((r) => `   rejected  ${r.file}: ${r.error?.message ?? ''} (${r.error?.code ?? ''})`);
      lines.push(
        `total: ${plural(total.files, 'file')} (${total.reused} answered already${total.in_parts > 0 ? `; ${total.in_parts} of them in parts, a line per part: ${plural(total.parts, 'part')}` : ''}), ${plural(total.pages, 'page')} to extract, ${plural(total.credits, 'credit')}, ${plural(total.requests, 'request')}; at least ${formatDuration(shortestMs)} under the rate limits ${formatRateWindows(windows)}`,
      );
      if (objects) lines.push(objectsLine(objects));
      out.write(`${renderLines(lines)}\n`);
    },
  };
}

/** What reading `s3://` inputs cost: a dry run downloads what it has not read before, to count its pages, and a run after it downloads none of that again. */
function objectsLine(o: ObjectFigures): string {
  return `objects: ${plural(o.listed, 'object')} listed (${plural(o.listed_bytes, 'byte')}, ${plural(o.requests, 'listing request')}); read ${o.downloaded + o.unchanged} (${plural(o.downloaded_bytes + o.unchanged_bytes, 'byte')}): ${o.downloaded} downloaded (${plural(o.downloaded_bytes, 'byte')}), ${o.unchanged} unchanged since an earlier read (${plural(o.unchanged_bytes, 'byte')})`;
}

/** Rendered whole: it names the file and its document type. */
function costLine(f: FileCost): string {
  return renderUntrusted(
    `${column(f.pages, 4, 'page')}  ${f.mode.padEnd(7)}  ${column(f.credits, 4, 'credit')}  ${column(f.requests, 3, 'request')}  ${f.action.padEnd(7)}  ${f.model.padEnd(14)}  ${f.file}  (${f.why})`,
  );
}

/** A count and its noun in a table's column: `1 page `, `2 pages`, `? pages` (the padding keeps the next column aligned). */
function column(count: number | null | undefined, digits: number, noun: string): string {
  return `${String(count ?? '?').padStart(digits)} ${(count === 1 ? noun : `${noun}s`).padEnd(noun.length + 1)}`;
}
