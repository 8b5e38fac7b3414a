import { resolveBatchSettings, type BatchFlags } from '../batch-settings.js';
import type { CommandOutcome } from '../command.js';
import type { CliContext } from '../context.js';
import { refuseFileAsFolder } from '../folder-not-file.js';
import { mcpServing } from './mcp-serving.js';
import { cliClient } from '../engine-access.js';
import { UsageError } from '../cli-errors.js';
import { objectStorageOf, type ObjectStorageFlags } from '../object-storage-flags.js';
import { parseObjectRoots } from '../../config/grammar/object-roots.js';

/**
 * Serves until the client closes stdin (or SIGINT / SIGTERM; see mcp-serving.ts
 * for a caller in the same process). stdout carries the protocol and nothing
 * else; what the server says goes to stderr.
 */
export async function runMcp(ctx: CliContext, flags: BatchFlags & ObjectStorageFlags & { allow?: string[]; allowS3?: string[] }): Promise<CommandOutcome> {
  const allowS3 = await objectRoots(ctx, flags.allowS3);
  const settings = await resolveBatchSettings(ctx, flags);
  await refuseFileAsFolder('--out', settings.outDir);
  // The server's budget is its own (--max-credits): each call runs with what is left of it.
  const { maxCredits, ...run } = settings.run;
  const client = await cliClient(ctx, { windows: settings.windows, run }, false, { objectStorage: objectStorageOf(ctx, flags) });
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
      ...(allowS3 ? { allowObjects: allowS3 } : {}),
    });
    const closed = new Promise<void>((resolve) => (server.server.onclose = resolve));
    await server.connect(serving.transport);
    const allowed = flags.allow ?? [ctx.io.cwd, settings.outDir];
    const objects = allowS3 ? `; objects only below ${allowS3.join(', ')}` : '';
    ctx.ui.info(
      `docextract mcp: serving on ${serving.where} (results in ${settings.outDir}; only inside the client's roots, else ${allowed.join(', ')}${objects})`,
    );
    await Promise.race([closed, serving.stopAsked]);
    await server.close(); // nothing to do when the client closed first
    await closed;
  } finally {
    serving.dispose();
  }
  return 'success';
}

/** The `s3://` roots: `--allow-s3` (repeatable) replaces the `allow-s3` setting (environment, then config), as `--model` replaces `models`. */
async function objectRoots(ctx: CliContext, flagValues: string[] | undefined): Promise<string[] | undefined> {
  const given = flagValues && flagValues.length > 0;
  const text = given ? flagValues : (await ctx.setting('allow-s3')).value;
  if (!text) return undefined;
  try {
    // The setting's grammar; flags are taken one address each (a key may hold a ';').
    return parseObjectRoots(text);
  } catch (error) {
    const from = given ? '--allow-s3' : 'allow-s3 (config or DOCEXTRACT_ALLOW_S3)';
    throw new UsageError(`${from} ${error instanceof Error ? error.message : String(error)}.`, 'invalid_setting');
  }
}
