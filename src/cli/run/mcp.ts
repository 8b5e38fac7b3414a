import { resolveBatchSettings, type BatchFlags } from '../batch-settings.js';
import type { CommandOutcome } from '../command.js';
import type { CliContext } from '../context.js';
import { refuseFileAsFolder } from '../folder-not-file.js';
import { mcpServing } from './mcp-serving.js';
import { cliClient } from '../engine-access.js';

/**
 * Serves until the client closes stdin (or SIGINT / SIGTERM; see mcp-serving.ts
 * for a caller in the same process). stdout carries the protocol and nothing
 * else; what the server says goes to stderr.
 */
export async function runMcp(ctx: CliContext, flags: BatchFlags & { allow?: string[] }): Promise<CommandOutcome> {
  const settings = await resolveBatchSettings(ctx, flags);
  await refuseFileAsFolder('--out', settings.outDir);
  // The server's budget is its own (--max-credits): each call runs with what is left of it.
  const { maxCredits, ...run } = settings.run;
  const client = await cliClient(ctx, { windows: settings.windows, run }, false);
  const [{ createMcpServer }, serving] = await Promise.all([import('../../mcp/server.js'), mcpServing(ctx)]);
  try {
    const server = createMcpServer({
      client,
      extract: {
        out: settings.outDir,
        model: settings.models,
        pages: settings.pages,
        ...(settings.checker ? { checker: settings.checker } : {}),
      },
      ...(maxCredits !== undefined ? { maxCredits } : {}),
      ...(flags.allow ? { allow: flags.allow } : {}),
    });
    const closed = new Promise<void>((resolve) => (server.server.onclose = resolve));
    await server.connect(serving.transport);
    const allowed = flags.allow ?? [ctx.io.cwd, settings.outDir];
    ctx.ui.info(`docextract mcp: serving on ${serving.where} (results in ${settings.outDir}; only inside the client's roots, else ${allowed.join(', ')})`);
    await Promise.race([closed, serving.stopAsked]);
    await server.close(); // nothing to do when the client closed first
    await closed;
  } finally {
    serving.dispose();
  }
  return 'success';
}
