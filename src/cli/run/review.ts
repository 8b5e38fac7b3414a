import { UsageError } from '../cli-errors.js';
import type { CommandOutcome } from '../command.js';
import type { CliContext } from '../context.js';
import { loadChecker, resolveSchemaRules } from '../schema-settings.js';
import { isObjectUri } from '../../util/object-uri.js';
import { cliClient } from '../engine-access.js';
import { objectStorageOf, type ObjectStorageFlags } from '../object-storage-flags.js';

interface ReviewFlags extends ObjectStorageFlags {
  schema?: string[];
  open: boolean;
  port?: string;
}

/** Serves the review page until interrupted; needs no key, and only reads the state folder (the last runs' failed files), without its lock. */
export async function runReview(ctx: CliContext, resultsDir: string, flags: ReviewFlags): Promise<CommandOutcome> {
  const port = flags.port === undefined ? undefined : Number(flags.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535))
    throw new UsageError(`--port must be a port number (0-65535), not "${flags.port}".`);
  const rules = await resolveSchemaRules(ctx, flags.schema);
  const checker = rules.isEmpty ? undefined : await loadChecker(ctx, rules);
  const dx = await cliClient(ctx, {}, false, { sendsNothing: true, objectStorage: objectStorageOf(ctx, flags) });
  let server;
  try {
    server = await dx.review(resultsDir, { ...(checker ? { checker } : {}), ...(port !== undefined ? { port } : {}) });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new UsageError(`--port ${port}: that port is in use on 127.0.0.1; leave --port out for a free one.`);
    throw error;
  }
  ctx.io.stdout.write(ctx.options.json ? `${JSON.stringify({ url: server.url })}\n` : `${server.url}\n`);
  ctx.ui.info('review page on 127.0.0.1 only (the token in the URL is its key); Ctrl-C to stop');
  if (isObjectUri(resultsDir)) ctx.ui.info(`${resultsDir}: corrections are saved in the bucket, never over a result or review changed there since it was read`);
  // The opener gets a private page that redirects to the URL, never the URL (its token) in its arguments.
  const browser = flags.open ? await (await import('../../library/review.js')).openInBrowser(server.url, ctx.io.env) : undefined;
  if (browser && !browser.opened) ctx.ui.warn('no browser opener (xdg-open) found: open the URL above yourself');
  await untilStopped(ctx.deps.stop);
  await browser?.close();
  await server.close();
  return 'success';
}

/** SIGINT, SIGTERM, or the in-process caller's signal (a test). */
function untilStopped(injected: AbortSignal | undefined): Promise<void> {
  return new Promise((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      injected?.removeEventListener('abort', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (injected?.aborted) stop();
    else injected?.addEventListener('abort', stop, { once: true });
  });
}
