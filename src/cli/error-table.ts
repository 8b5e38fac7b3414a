/**
 * THE table of error codes as the CLI words them: for each stable code (the
 * API's own, spec §7, and those docextract's errors carry), the exit code and
 * what the user can do next. The error classes carry the codes; the generated
 * reference (docs/reference.md, npm run docs:reference) lists each code from here.
 */
import { ExitCode, type ExitCodeValue } from './exit-codes.js';

export interface CodeOutcome {
  exit: ExitCodeValue;
  hint?: string;
}

export const ERROR_TABLE = {
  // The key (exit 3).
  invalid_api_key: { exit: ExitCode.Auth, hint: 'Check the key: docextract config set api-key (it is "sk_" + 32 hex characters).' },
  expired_api_key: { exit: ExitCode.Auth, hint: 'The key has expired. Create a new key, then run: docextract config set api-key' },

  // Credits, the request cap, the rate budget, the open-job slots (exit 4).
  usage_limit_exceeded: { exit: ExitCode.Budget, hint: "The key's request cap is reached. Raise allowed_requests for the key or use another key." },
  insufficient_credits: { exit: ExitCode.Budget, hint: 'Not enough credits for this document (1 credit per page). Top up, then run the same command again.' },
  rate_limit_exceeded: { exit: ExitCode.Budget, hint: 'The rate limit was hit. Wait for the window to reset; docextract paces itself under --rate-limit.' },
  too_many_open_jobs: {
    exit: ExitCode.Budget,
    hint: 'Five multi-page jobs are already open for this key. Finish them (docextract collect <job_id>) or wait for them to expire.',
  },

  // The service refused or failed one piece of work (exit 1).
  job_not_found: { exit: ExitCode.WorkFailed, hint: 'No such job for this key. Check the id (a chunk id for process, the parent id for collect).' },
  job_expired: {
    exit: ExitCode.WorkFailed,
    hint: 'The job expired (2 h after the split) or was finalized. Upload the document again with docextract extract.',
  },
  chunk_source_lost: { exit: ExitCode.WorkFailed, hint: 'The server lost the staged file. Upload the document again with docextract extract.' },
  chunk_in_progress: { exit: ExitCode.WorkFailed, hint: 'Another request is processing this chunk. Try again shortly; a stuck claim frees up after 120 s.' },
  extraction_failed: {
    exit: ExitCode.WorkFailed,
    hint: 'The service could not extract this document. Check the file; a synchronous failure is already charged.',
  },
  persist_failed: { exit: ExitCode.WorkFailed, hint: 'The service failed to store the chunk (no credits charged). Retry: docextract process <chunk_job_id>' },
  server_error: { exit: ExitCode.WorkFailed, hint: 'The service had an internal error. Try again later.' },
  server_busy: { exit: ExitCode.WorkFailed, hint: 'The service is busy. Try again in a few minutes.' },
  invalid_options: { exit: ExitCode.WorkFailed, hint: 'The options field was rejected; check --model.' },
  file_too_large: { exit: ExitCode.WorkFailed, hint: 'The service accepts files up to 10 MB.' },
  page_limit_exceeded: { exit: ExitCode.WorkFailed, hint: 'The service accepts PDFs of up to 150 pages. Split the file first.' },
  invalid_file_type: { exit: ExitCode.WorkFailed, hint: 'The service accepts PDF, JPEG and PNG files, judged by content.' },
  invalid_file: { exit: ExitCode.WorkFailed, hint: 'The file could not be read as a PDF or image.' },
  network_error: { exit: ExitCode.WorkFailed, hint: 'Could not reach the service. Check --base-url, the network and any proxy (HTTPS_PROXY, NO_PROXY).' },
  timeout: { exit: ExitCode.WorkFailed, hint: 'The service did not answer in time. Try again later.' },
  malformed_response: { exit: ExitCode.WorkFailed, hint: "The service (or a proxy in between) sent an answer that is not the API's JSON. Try again later." },
  response_too_large: {
    exit: ExitCode.WorkFailed,
    hint: 'The answer was far larger than any real one (a broken server or proxy?); docextract stopped reading it. Check --base-url and any proxy; an upload that got one may have been charged.',
  },
  response_validation_failed: {
    exit: ExitCode.WorkFailed,
    hint: 'The service answered, but not as API v3.1 specifies. Check --base-url points at a v3.1 service.',
  },

  // Usage and configuration: nothing was sent (exit 2).
  usage_error: { exit: ExitCode.Usage },
  unknown_command: { exit: ExitCode.Usage },
  unknown_shell: { exit: ExitCode.Usage },
  invalid_option: { exit: ExitCode.Usage },
  invalid_setting: { exit: ExitCode.Usage },
  unknown_setting: { exit: ExitCode.Usage },
  invalid_job_id: { exit: ExitCode.Usage },
  invalid_path_list: { exit: ExitCode.Usage },
  output_not_a_folder: { exit: ExitCode.Usage },
  results_not_found: { exit: ExitCode.Usage },
  // Raised by the engine before sending (its document types) and by the service (a 400): the same fix.
  unknown_model: { exit: ExitCode.Usage, hint: 'List the document types this key may use: docextract models' },
  invalid_schema: {
    exit: ExitCode.Usage,
    hint: 'Each --schema TYPE=FILE (or the schemas setting) names a JSON Schema (draft 2020-12) for a document type; nothing was sent.',
  },
  config_error: { exit: ExitCode.Usage },
  invalid_config_file: { exit: ExitCode.Usage },
  invalid_api_key_format: { exit: ExitCode.Usage },
  invalid_base_url: { exit: ExitCode.Usage },
  insecure_transport: { exit: ExitCode.Usage },
  invalid_profile_name: { exit: ExitCode.Usage },
  unknown_profile: { exit: ExitCode.Usage },
  missing_api_key: { exit: ExitCode.Usage, hint: 'Set a key: docextract config set api-key, or DOCEXTRACT_API_KEY, or --api-key.' },
  proxy_auth_required: {
    // Configuration, not the service: nothing will work until the proxy URL carries credentials.
    exit: ExitCode.Usage,
    hint: 'The proxy asks for credentials (HTTP 407). Put them in the proxy URL, percent-encoded, e.g. HTTPS_PROXY=http://user:p%40ss@proxy:3128 for the password "p@ss" (encode @ : / % # ? and spaces, as encodeURIComponent does). If the service needs no proxy, add its host to NO_PROXY.',
  },
  journal_corrupt: {
    exit: ExitCode.Usage,
    hint: 'The state journal is damaged in the middle, so docextract will not guess. Move it aside (it names open jobs you can still finish with `docextract collect <job_id>`), then run again.',
  },
  state_dir_unusable: {
    exit: ExitCode.Usage,
    hint: 'docextract keeps its journal and request log there. Fix its permissions, or point DOCEXTRACT_STATE_DIR (or XDG_STATE_HOME) at a writable folder.',
  },
  state_dir_unsafe: {
    exit: ExitCode.Usage,
    hint: 'The state folder keeps the paths of your documents and what each run did: docextract uses it only when it is yours alone (mode 0700, no links in it). Do what the message says, or point DOCEXTRACT_STATE_DIR at a folder of your own.',
  },
  move_unsafe: {
    exit: ExitCode.Usage,
    hint: 'watch moves files by path, and Node cannot rename race-free inside a folder someone else controls: --move-done and --move-failed need the watched folder and the move folders (and the folders on the way to them) to be writable only by you and root, or shared with the sticky bit (chmod 1777). Fix the folder the message names, or watch without the move flags.',
  },
  state_locked: {
    exit: ExitCode.Usage,
    hint: 'Another docextract run is using this state folder. Wait for it to finish, or give this run its own DOCEXTRACT_STATE_DIR.',
  },

  // Stopped; the work can be resumed (exit 130).
  interrupted: { exit: ExitCode.Interrupted },
} as const satisfies Record<string, CodeOutcome>;

type ErrorCode = keyof typeof ERROR_TABLE;

/** A code whose exit is 2: the codes a usage or configuration error may carry. */
export type UsageCode = { [C in ErrorCode]: (typeof ERROR_TABLE)[C]['exit'] extends typeof ExitCode.Usage ? C : never }[ErrorCode];

/** A code's exit code and hint; a code not in the table (a service's new one, a bug's internal_error) is failed work without a hint. */
export function outcomeOfCode(code: string): CodeOutcome {
  return Object.hasOwn(ERROR_TABLE, code) ? ERROR_TABLE[code as ErrorCode] : { exit: ExitCode.WorkFailed };
}
