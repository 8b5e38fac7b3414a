import { describe, expect, it } from 'vitest';
import {
  ApiError,
  MalformedResponseError,
  NetworkError,
  ProxyAuthRequiredError,
  ResponseTooLargeError,
  ResponseValidationError,
  TimeoutError,
} from '../../../src/api/errors.js';
import { UnknownModelError } from '../../../src/engine/check-models.js';
import { MoveUnsafeError } from '../../../src/engine/move-unsafe-error.js';
import { ConfigError } from '../../../src/cli/cli-errors.js';
import { describeError } from '../../../src/cli/error-report.js';
import { ERROR_TABLE } from '../../../src/cli/error-table.js';
import { SchemaFileError } from '../../../src/checks/load-schemas.js';
import { JournalCorruptError } from '../../../src/store/journal.js';
import { LockedError } from '../../../src/store/lock.js';
import { StateDirError } from '../../../src/store/state-dir-error.js';
import { StateDirUnsafeError } from '../../../src/store/state-dir-unsafe-error.js';

/**
 * Every hint, as the user reads it. Written out here on purpose (not imported):
 * a change to a hint's wording must show up as a failing test to review.
 */
const API_HINTS: [code: string, status: number, hint: string][] = [
  ['invalid_api_key', 401, 'Check the key: docextract config set api-key (it is "sk_" + 32 hex characters).'],
  ['expired_api_key', 401, 'The key has expired. Create a new key, then run: docextract config set api-key'],
  ['usage_limit_exceeded', 429, "The key's request cap is reached. Raise allowed_requests for the key or use another key."],
  ['insufficient_credits', 402, 'Not enough credits for this document (1 credit per page). Top up, then run the same command again.'],
  ['rate_limit_exceeded', 429, 'The rate limit was hit. Wait for the window to reset; docextract paces itself under --rate-limit.'],
  ['too_many_open_jobs', 429, 'Five multi-page jobs are already open for this key. Finish them (docextract collect <job_id>) or wait for them to expire.'],
  ['job_not_found', 404, 'No such job for this key. Check the id (a chunk id for process, the parent id for collect).'],
  ['job_expired', 410, 'The job expired (2 h after the split) or was finalized. Upload the document again with docextract extract.'],
  ['chunk_source_lost', 410, 'The server lost the staged file. Upload the document again with docextract extract.'],
  ['chunk_in_progress', 409, 'Another request is processing this chunk. Try again shortly; a stuck claim frees up after 120 s.'],
  ['extraction_failed', 422, 'The service could not extract this document. Check the file; a synchronous failure is already charged.'],
  ['persist_failed', 500, 'The service failed to store the chunk (no credits charged). Retry: docextract process <chunk_job_id>'],
  ['server_error', 500, 'The service had an internal error. Try again later.'],
  ['server_busy', 503, 'The service is busy. Try again in a few minutes.'],
  ['unknown_model', 400, 'List the document types this key may use: docextract models'],
  ['invalid_options', 400, 'The options field was rejected; check --model.'],
  ['file_too_large', 413, 'The service accepts files up to 10 MB.'],
  ['page_limit_exceeded', 400, 'The service accepts PDFs of up to 150 pages. Split the file first.'],
  ['invalid_file_type', 400, 'The service accepts PDF, JPEG and PNG files, judged by content.'],
  ['invalid_file', 400, 'The file could not be read as a PDF or image.'],
];

/** Hints for errors that are not an API envelope: each made from the error the client really throws. */
const OTHER_HINTS: [code: string, error: Error, hint: string][] = [
  [
    'network_error',
    new NetworkError('health', 'connect ECONNREFUSED'),
    'Could not reach the service. Check --base-url, the network and any proxy (HTTPS_PROXY, NO_PROXY).',
  ],
  ['timeout', new TimeoutError('documents', 'UND_ERR_HEADERS_TIMEOUT'), 'The service did not answer in time. Try again later.'],
  [
    'malformed_response',
    new MalformedResponseError('result', 502, 'not JSON', '<html>'),
    "The service (or a proxy in between) sent an answer that is not the API's JSON. Try again later.",
  ],
  [
    'response_validation_failed',
    new ResponseValidationError('models', 200, [], 'data.models: expected array'),
    'The service answered, but not as API v3.1 specifies. Check --base-url points at a v3.1 service.',
  ],
  [
    'proxy_auth_required',
    new ProxyAuthRequiredError('health'),
    'The proxy asks for credentials (HTTP 407). Put them in the proxy URL, percent-encoded, e.g. HTTPS_PROXY=http://user:p%40ss@proxy:3128 for the password "p@ss" (encode @ : / % # ? and spaces, as encodeURIComponent does). If the service needs no proxy, add its host to NO_PROXY.',
  ],
  [
    'response_too_large',
    new ResponseTooLargeError('result', 200, 1024),
    'The answer was far larger than any real one (a broken server or proxy?); docextract stopped reading it. Check --base-url and any proxy; an upload that got one may have been charged.',
  ],
  [
    'missing_api_key',
    new ConfigError('No API key is configured.', 'missing_api_key'),
    'Set a key: docextract config set api-key, or DOCEXTRACT_API_KEY, or --api-key.',
  ],
];

/** The hints for docextract's own failures, raised before or beside any request. */
const LOCAL_HINTS: [code: string, error: Error, hint: string][] = [
  [
    'journal_corrupt',
    new JournalCorruptError('/state/journal.ndjson', 3),
    'The state journal is damaged in the middle, so docextract will not guess. Move it aside (it names open jobs you can still finish with `docextract collect <job_id>`), then run again.',
  ],
  [
    'state_dir_unusable',
    new StateDirError('/state', Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' })),
    'docextract keeps its journal and request log there. Fix its permissions, or point DOCEXTRACT_STATE_DIR (or XDG_STATE_HOME) at a writable folder.',
  ],
  [
    'unknown_model',
    new UnknownModelError([{ name: 'invoce', closest: ['invoice'] }], ['invoice'], true),
    'List the document types this key may use: docextract models',
  ],
  [
    'invalid_schema',
    new SchemaFileError('schemas/invoice.json', 'not JSON'),
    'Each --schema TYPE=FILE (or the schemas setting) names a JSON Schema (draft 2020-12) for a document type; nothing was sent.',
  ],
  [
    'state_dir_unsafe',
    new StateDirUnsafeError('/state', 'The state folder /state is not private'),
    'The state folder keeps the paths of your documents and what each run did: docextract uses it only when it is yours alone (mode 0700, no links in it). Do what the message says, or point DOCEXTRACT_STATE_DIR at a folder of your own.',
  ],
  [
    'move_unsafe',
    new MoveUnsafeError('/srv/inbox/sub', 'it belongs to another user (uid 4242)', 'cannot move files out of or into the watched folder /srv/inbox'),
    'watch moves files by path, and Node cannot rename race-free inside a folder someone else controls: --move-done and --move-failed need the watched folder and the move folders (and the folders on the way to them) to be writable only by you and root, or shared with the sticky bit (chmod 1777). Fix the folder the message names, or watch without the move flags.',
  ],
  [
    'state_locked',
    new LockedError(4242, '/state/lock'),
    'Another docextract run is using this state folder. Wait for it to finish, or give this run its own DOCEXTRACT_STATE_DIR.',
  ],
];

function apiError(code: string, status: number): ApiError {
  return ApiError.from('documents', status, { success: false, error: { code, message: 'from the server' } }, new Headers());
}

describe('error hints: the exact text for every code', () => {
  it.each(API_HINTS)('%s (HTTP %i)', (code, status, hint) => {
    const report = describeError(apiError(code, status));
    expect(report.code).toBe(code);
    expect(report.hint).toBe(hint);
  });

  it.each([...OTHER_HINTS, ...LOCAL_HINTS])('%s', (code, error, hint) => {
    const report = describeError(error);
    expect(report.code).toBe(code);
    expect(report.hint).toBe(hint);
  });

  it('covers every code of the error table that has a hint, and only those', () => {
    // A hint added without a test here must fail.
    const codes = Object.entries(ERROR_TABLE).flatMap(([code, outcome]) => ('hint' in outcome ? [code] : []));
    expect(codes.length).toBeGreaterThan(20);
    expect([...codes].sort()).toEqual([...new Set([...API_HINTS, ...OTHER_HINTS, ...LOCAL_HINTS].map(([code]) => code))].sort());
  });

  it('gives one hint for a code, whoever raised it: the engine before sending, or the service', () => {
    const fromEngine = describeError(new UnknownModelError([{ name: 'invoce', closest: ['invoice'] }], ['invoice'], true));
    const fromService = describeError(apiError('unknown_model', 400));
    expect(fromService.hint).toBe(fromEngine.hint);
    expect(fromService.exitCode).toBe(fromEngine.exitCode);
  });

  it('gives no hint for a code it does not know', () => {
    expect(describeError(apiError('something_new', 400)).hint).toBeUndefined();
  });
});
