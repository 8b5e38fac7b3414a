import type { CliContext } from '../context.js';
import { cliClient } from '../engine-access.js';
import { printData, renderLines } from '../output.js';

export async function runModels(ctx: CliContext): Promise<void> {
  const dx = await cliClient(ctx, {}, false);
  const list = await dx.models();
  const models = list.data.models;
  printData(ctx, list, () => {
    if (models.length === 0) return 'This key has no model access configured (the list is empty).';
    return renderLines(models.map((model) => describeModel(model)));
  });
}

function describeModel(model: Record<string, unknown>): string {
  const name = String(model.name ?? model.document_type ?? model.id ?? JSON.stringify(model));
  const description = typeof model.description === 'string' ? `  ${model.description}` : '';
  return `${name}${description}`;
}
