import { CommanderError } from 'commander';
import { buildEmulatorProgram, cliConfigFrom, parsedValues, type EmulatorCliConfig } from './cli-args.js';
import { DEFAULT_RATE_LIMITS } from './defaults.js';
import { clientRateLimit } from './durations.js';
import { writeEnvFile } from './env-file.js';
import { startEmulator } from './server.js';
import type { EmulatorOptions, EmulatorRequestLog, RateWindowConfig, RunningEmulator } from './types.js';

/** Where the CLI writes; injected so tests can capture it. */
export interface EmulatorCliIO {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

function describeWindows(windows: RateWindowConfig[] | undefined): string {
  if (windows === undefined) return '10/min, 100/h, 1000/d, 10000/mo (default)';
  if (windows.length === 0) return 'none';
  return windows.map((w) => `${w.limit}/${w.windowMs}ms`).join(', ');
}

function describeWorld(options: EmulatorOptions): string {
  const parts = [
    options.clockSkewMs === undefined ? null : `clock skew ${options.clockSkewMs}ms`,
    options.resetStyle === undefined ? null : `Reset as ${options.resetStyle}`,
    options.foreignRate === undefined ? null : `a foreign client at ${options.foreignRate.count}/${options.foreignRate.perMs}ms`,
    options.foreignJobs === undefined ? null : `${options.foreignJobs.count} foreign open jobs per key`,
  ].filter((part) => part !== null);
  return parts.length === 0 ? 'alone, on our clock' : parts.join(', ');
}

function logLine(entry: EmulatorRequestLog): string {
  const time = new Date(entry.at).toISOString().slice(11, 23);
  const code = entry.code === undefined ? '' : ` ${entry.code}`;
  const fault = entry.fault === undefined ? '' : ` [fault ${entry.fault}]`;
  const bytes = entry.bodyBytes === undefined ? '' : ` ${entry.bodyBytes} body bytes`;
  return `${time} ${entry.method} ${entry.path} ${entry.status}${code} ${entry.durationMs}ms${bytes}${fault}\n`;
}

/**
 * Parses argv and starts the emulator: base URL on the first stdout line, a
 * generated key on the second, a banner and request log on stderr. Throws a
 * CommanderError for bad flags (commander has printed the message by then).
 */
export async function launchEmulatorCli(argv: string[], io: EmulatorCliIO): Promise<RunningEmulator> {
  const program = buildEmulatorProgram()
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) });
  await program.parseAsync(argv);
  let config: EmulatorCliConfig;
  try {
    config = cliConfigFrom(parsedValues(program));
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return program.error(`error: ${error.message}`); // prints, then throws a CommanderError
  }
  const emulator = await startEmulator({
    ...config.options,
    ...(config.quiet ? {} : { onRequest: (entry: EmulatorRequestLog) => io.stderr.write(logLine(entry)) }),
  });
  // The client assumes the real service's windows unless told: without DOCEXTRACT_RATE_LIMIT, its plans and waits are the real service's.
  const clientEnv: [string, string][] = [
    ['DOCEXTRACT_BASE_URL', emulator.url],
    ['DOCEXTRACT_RATE_LIMIT', clientRateLimit(config.options.rateLimits ?? DEFAULT_RATE_LIMITS)],
    ...(config.generatedKey === null ? [] : [['DOCEXTRACT_API_KEY', config.generatedKey] as [string, string]]),
  ];
  if (config.envFile !== undefined) {
    try {
      await writeEnvFile(config.envFile, clientEnv);
    } catch (error) {
      await emulator.close();
      throw error;
    }
  }
  io.stdout.write(`${emulator.url}\n`);
  if (config.generatedKey !== null) io.stdout.write(`${config.generatedKey}\n`);
  io.stderr.write(
    [
      `docextract emulator (API v3.1, synthetic extraction) listening on ${emulator.url}`,
      `  keys: ${emulator.keys.length}${config.generatedKey === null ? '' : ' (generated, printed on stdout)'}`,
      `  rate limits: ${describeWindows(config.options.rateLimits)}`,
      `  for the client: ${clientEnv.map(([name, value]) => `${name}=${value}`).join(' ')}${config.envFile === undefined ? '' : ` (written to ${config.envFile})`}`,
      `  faults: ${config.options.faults === undefined ? 'none' : JSON.stringify(config.options.faults)}`,
      `  world: ${describeWorld(config.options)}`,
      '  Ctrl-C to stop',
      '',
    ].join('\n'),
  );
  return emulator;
}

function nextShutdownSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** The `docextract-emulator` bin: runs until SIGINT or SIGTERM, then closes cleanly (exit code 0). */
export async function runEmulatorCli(argv: string[]): Promise<void> {
  const io: EmulatorCliIO = { stdout: process.stdout, stderr: process.stderr };
  let emulator: RunningEmulator;
  try {
    emulator = await launchEmulatorCli(argv, io);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode;
      return;
    }
    io.stderr.write(`docextract-emulator: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
    return;
  }
  const signal = await nextShutdownSignal();
  io.stderr.write(`${signal}: closing the emulator\n`);
  await emulator.close();
  process.exitCode = 0;
}
