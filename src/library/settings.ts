/**
 * The engine's rules for a run's settings, as the library exports them: the
 * defaults, the check every front door's settings go through, the rate
 * window syntax, and the scheduler's lower bound for a batch. The CLI reads
 * them from here, never from the engine's own modules.
 */
export { RUN_DEFAULTS, MIN_TTL_MS, InvalidSettingError, runSettings } from '../batch/run-settings.js';
export { formatRateWindows, parseRateWindows, RateSpecError, type RateWindow } from '../config/grammar/rate-limit.js';
export { minimumMakespanMs } from '../batch/admission.js';
export { SERVICE_DEFAULT_MODEL } from '../batch/question.js';
