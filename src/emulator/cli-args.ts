import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { parseDuration, parseForeignJobs, parseRateWindowConfigs, parseRequestRate, parseSignedDuration } from './durations.js';
import { ENDPOINTS, FAULT_KINDS } from './fault-injector.js';
import { generateDemoKey, isWellFormedKey } from './key-registry.js';
import { RESET_STYLES } from './server-clock.js';
import type { EmulatorEndpoint, EmulatorKeyConfig, EmulatorOptions, FaultConfig, Latency, FaultKind, ResetStyle } from './types.js';

/** The port when --port is not given: fixed, so a demo can be pointed at it by hand. */
const DEFAULT_CLI_PORT = 8787;

export interface EmulatorCliConfig {
  options: EmulatorOptions;
  quiet: boolean;
  /** Set when no --key was given and one was made up. */
  generatedKey: string | null;
  /** --write-env: where to write the client's variables once listening. */
  envFile?: string;
}

/** Wraps a parser so commander reports its message as an invalid argument. */
function argument<T>(parse: (text: string, previous?: T) => T): (text: string, previous: T | undefined) => T {
  return (text, previous) => {
    try {
      return parse(text, previous);
    } catch (error) {
      throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
    }
  };
}

function nonNegativeInteger(text: string): number {
  if (!/^\d+$/.test(text.trim())) throw new RangeError(`"${text}" is not a non-negative integer`);
  return Number(text);
}

function signedInteger(text: string): number {
  if (!/^-?\d+$/.test(text.trim())) throw new RangeError(`"${text}" is not an integer`);
  return Number(text);
}

/** PEM from a file, read at start-up so a wrong path fails as a usage error. */
function pemFile(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new RangeError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function endpointsFor(name: string): EmulatorEndpoint[] {
  if (name === '*') return [...ENDPOINTS];
  if (!ENDPOINTS.includes(name as EmulatorEndpoint)) throw new RangeError(`unknown endpoint "${name}" (use ${ENDPOINTS.join(', ')} or *)`);
  return [name as EmulatorEndpoint];
}

/**
 * `process=200,documents=50,*=10` -> per-endpoint milliseconds (durations such
 * as 1s work too); `documents=1.5s..2.5s` draws each answer's delay from a range.
 */
export function parseLatency(text: string): Partial<Record<EmulatorEndpoint, Latency>> {
  const latency: Partial<Record<EmulatorEndpoint, Latency>> = {};
  for (const part of text.split(',')) {
    const [name, value] = part.split('=');
    if (name === undefined || value === undefined) throw new RangeError(`"${part}" is not endpoint=ms or endpoint=min..max`);
    for (const endpoint of endpointsFor(name.trim())) latency[endpoint] = parseLatencyValue(value);
  }
  return latency;
}

function parseLatencyValue(value: string): Latency {
  const range = value.split('..');
  if (range.length === 1) return parseDuration(value);
  const [minMs, maxMs] = range.map((bound) => parseDuration(bound));
  if (range.length !== 2 || minMs === undefined || maxMs === undefined || maxMs < minMs) throw new RangeError(`"${value}" is not a range min..max`);
  return { minMs, maxMs };
}

/** `documents.server_busy=0.1` or `*.slow=0.5`, merged into what came before (repeatable flag). */
export function addFault(text: string, previous: FaultConfig = {}): FaultConfig {
  const match = /^\s*([a-z*]+)\.([a-z_0-9]+)\s*=\s*([0-9.]+)\s*$/.exec(text);
  if (match === null) throw new RangeError(`"${text}" is not endpoint.kind=probability`);
  const [, name = '', kind = '', probabilityText = ''] = match;
  if (!FAULT_KINDS.includes(kind as FaultKind)) throw new RangeError(`unknown fault kind "${kind}" (use ${FAULT_KINDS.join(', ')})`);
  const probability = Number(probabilityText);
  if (!(probability >= 0 && probability <= 1)) throw new RangeError(`probability ${probabilityText} is not between 0 and 1`);
  const faults: FaultConfig = structuredClone(previous);
  for (const endpoint of endpointsFor(name)) faults[endpoint] = { ...faults[endpoint], [kind]: probability };
  return faults;
}

function addKey(text: string, previous: string[] = []): string[] {
  if (!isWellFormedKey(text)) throw new RangeError(`"${text}" is not sk_ followed by 32 hex characters`);
  return [...previous, text];
}

export function buildEmulatorProgram(): Command {
  return (
    new Command('docextract-emulator')
      .description(
        'Local emulator of the Document Extraction Service API v3.1 (synthetic, deterministic extraction).\nPrints the base URL on the first stdout line, and a generated key on the second when no --key is given.',
      )
      .addOption(new Option('--port <n>', 'port to listen on; 0 picks a free one').default(DEFAULT_CLI_PORT).argParser(argument(nonNegativeInteger)))
      .option('--host <host>', 'interface to bind', '127.0.0.1')
      .option('--key <sk_...>', 'accept this API key (repeatable); without one a demo key is generated', argument(addKey))
      .option('--credits <n>', 'credits per key (default 1000000)', argument(nonNegativeInteger))
      .option('--allowed-requests <n>', 'documents+process request cap per key (default unlimited)', argument(nonNegativeInteger))
      .option('--rate-limit <spec>', 'rate windows, e.g. 10/min,100/h,1000/d,10000/mo (the default), 8/1s,60/12s, or none', argument(parseRateWindowConfigs))
      .option('--ttl <duration>', 'job TTL from the split, e.g. 2h (default), 90s, 500ms', argument(parseDuration))
      .option('--claim-timeout <duration>', 'age at which a chunk claim may be taken over (default 120s)', argument(parseDuration))
      .option('--open-jobs <n>', 'open multi-page jobs per key (default 5)', argument(nonNegativeInteger))
      .option(
        '--latency <endpoint=ms,...>',
        'added delay per endpoint (ms, a duration, or a range such as 1.5s..2.5s); endpoint may be *',
        argument(parseLatency),
      )
      .option('--slow-ms <ms>', "extra delay of the 'slow' fault (default 2000)", argument(parseDuration))
      .option('--fault <endpoint.kind=prob>', 'inject a fault with this probability (repeatable); endpoint may be *', argument(addFault))
      .option('--seed <n>', 'seed of the fault PRNG (same seed + same request order = same faults)', argument(nonNegativeInteger))
      .option('--oversize-bytes <n>', 'inflated body size of the oversized_body and gzip_bomb faults (default 1.5 GiB)', argument(nonNegativeInteger))
      .option(
        '--clock-skew <duration>',
        "the server's clock runs this far ahead (e.g. 4s) or behind (-4s, or --clock-skew=-4s) in what it shows",
        argument(parseSignedDuration),
      )
      .addOption(new Option('--reset-style <style>', 'how X-RateLimit-Reset is written (default epoch: Unix seconds)').choices(RESET_STYLES))
      .option('--foreign-rate <n/period>', 'another client on each key spends the rate windows at this rate, e.g. 2/s, 1/500ms', argument(parseRequestRate))
      .option(
        '--foreign-jobs <n[@ttl]>',
        'another client holds n open multi-page jobs on each key from start-up, e.g. 5 or 3@10m (default ttl: the job TTL)',
        argument(parseForeignJobs),
      )
      .option(
        '--credits-used-skew <n>',
        'collected results report credits_used this many credits above (negative: below) what the job was charged; charges do not change (--credits-used-skew=-1)',
        argument(signedInteger),
      )
      .option('--tls-cert <file>', 'serve HTTPS with this PEM certificate (chain); needs --tls-key', argument(pemFile))
      .option('--tls-key <file>', 'the PEM private key for --tls-cert', argument(pemFile))
      .option('-q, --quiet', 'no per-request log lines on stderr', false)
      // Not --env-file: node reads that flag itself even after the script's path (nodejs/node#54232), and exits 9.
      .option('--write-env <path>', "once listening, write the client's variables there as `export NAME=value` lines (mode 0600) for `. ./emulator.env`")
  );
}

interface ProgramValues {
  port: number;
  host: string;
  key?: string[];
  credits?: number;
  allowedRequests?: number;
  rateLimit?: EmulatorOptions['rateLimits'];
  ttl?: number;
  claimTimeout?: number;
  openJobs?: number;
  latency?: EmulatorOptions['latencyMs'];
  slowMs?: number;
  fault?: FaultConfig;
  seed?: number;
  oversizeBytes?: number;
  clockSkew?: number;
  resetStyle?: ResetStyle;
  foreignRate?: EmulatorOptions['foreignRate'];
  foreignJobs?: EmulatorOptions['foreignJobs'];
  creditsUsedSkew?: number;
  tlsCert?: Buffer;
  tlsKey?: Buffer;
  quiet: boolean;
  writeEnv?: string;
}

function tlsFrom(values: ProgramValues): EmulatorOptions['tls'] {
  if (values.tlsCert === undefined && values.tlsKey === undefined) return undefined;
  if (values.tlsCert === undefined || values.tlsKey === undefined) throw new RangeError('--tls-cert and --tls-key go together');
  return { cert: values.tlsCert, key: values.tlsKey };
}

/** Turns parsed flag values into EmulatorOptions; a RangeError for flags that do not fit together. */
export function cliConfigFrom(values: ProgramValues): EmulatorCliConfig {
  const tls = tlsFrom(values);
  const generatedKey = values.key === undefined ? generateDemoKey() : null;
  const keys: EmulatorKeyConfig[] = (values.key ?? [generatedKey ?? '']).map((key) => ({
    key,
    ...(values.credits === undefined ? {} : { credits: values.credits }),
    ...(values.allowedRequests === undefined ? {} : { allowedRequests: values.allowedRequests }),
  }));
  const options: EmulatorOptions = {
    port: values.port,
    host: values.host,
    keys,
    ...(values.rateLimit === undefined ? {} : { rateLimits: values.rateLimit }),
    ...(values.ttl === undefined ? {} : { ttlMs: values.ttl }),
    ...(values.claimTimeout === undefined ? {} : { claimTimeoutMs: values.claimTimeout }),
    ...(values.openJobs === undefined ? {} : { openJobCap: values.openJobs }),
    ...(values.latency === undefined ? {} : { latencyMs: values.latency }),
    ...(values.slowMs === undefined ? {} : { slowMs: values.slowMs }),
    ...(values.fault === undefined ? {} : { faults: values.fault }),
    ...(values.seed === undefined ? {} : { seed: values.seed }),
    ...(values.oversizeBytes === undefined ? {} : { oversizeBytes: values.oversizeBytes }),
    ...(values.clockSkew === undefined ? {} : { clockSkewMs: values.clockSkew }),
    ...(values.resetStyle === undefined ? {} : { resetStyle: values.resetStyle }),
    ...(values.foreignRate === undefined ? {} : { foreignRate: values.foreignRate }),
    ...(values.foreignJobs === undefined ? {} : { foreignJobs: values.foreignJobs }),
    ...(values.creditsUsedSkew === undefined ? {} : { creditsUsedSkew: values.creditsUsedSkew }),
    ...(tls === undefined ? {} : { tls }),
  };
  return { options, quiet: values.quiet, generatedKey, ...(values.writeEnv === undefined ? {} : { envFile: values.writeEnv }) };
}

export function parsedValues(program: Command): ProgramValues {
  return program.opts<ProgramValues>();
}
