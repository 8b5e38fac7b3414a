/**
 * The engine's rules for a run's settings, as the library exports them: the
 * defaults, the check every front door's settings go through, the rate
 * window syntax, and the scheduler's lower bound for a batch. The CLI reads
 * them from here, never from the engine's own modules.
 */
export { RUN_DEFAULTS, MIN_TTL_MS, InvalidSettingError, runSettings } from '../batch/run-settings.js';
export { formatRateWindows, parseRateWindows, RateSpecError, type RateWindow } from '../config/grammar/rate-limit.js';
export { minimumMakespanMs } from '../batch/admission.js';
export { ModelRules, type ModelRule } from '../engine/model-rules.js';
export { PageRules, type PageRule } from '../engine/page-rules.js';
export { DEFAULT_PASS_MS } from '../files/hot-folder.js';
export { DEFAULT_SETTLE_MS } from '../files/settled-files.js';
export { formatPages, pageRanges } from '../files/page-selection.js';
export { readDeclaredRateLimit, rememberDeclaredRateLimit } from '../store/declared-windows.js';
