/**
 * The docextract service emulator: the Document Extraction Service API v3.1,
 * as its spec describes it, with deterministic synthetic extraction, every
 * limit configurable, and seeded fault injection. Imports nothing from the
 * client, so the client is tested against the spec, not against itself.
 */
export { startEmulator } from './server.js';
export { pageFingerprint } from './synthetic/seeded.js';
export { parseRateWindowConfigs, parseDuration } from './durations.js';
export type {
  EmulatorCounters,
  EmulatorEndpoint,
  EmulatorEvent,
  EmulatorKeyConfig,
  EmulatorOptions,
  EmulatorRequestLog,
  FaultConfig,
  FaultKind,
  ForeignJobsConfig,
  LyingFaultKind,
  RequestRate,
  ResetStyle,
  TlsConfig,
  RateWindowConfig,
  ReceivedUpload,
  RunningEmulator,
} from './types.js';
