/** What the user can do next, by the API's stable error code (spec §7). */
const HINTS: Record<string, string> = {
  invalid_api_key: 'Check the key: docextract config set api-key (it is "sk_" + 32 hex characters).',
  expired_api_key: 'The key has expired. Create a new key, then run: docextract config set api-key',
  usage_limit_exceeded: "The key's request cap is reached. Raise allowed_requests for the key or use another key.",
  insufficient_credits: 'Not enough credits for this document (1 credit per page). Top up, then run the same command again.',
  rate_limit_exceeded: 'The rate limit was hit. Wait for the window to reset; docextract paces itself under --rate-limit.',
  too_many_open_jobs: 'Five multi-page jobs are already open for this key. Finish them (docextract collect <job_id>) or wait for them to expire.',
  job_not_found: 'No such job for this key. Check the id (a chunk id for process, the parent id for collect).',
  job_expired: 'The job expired (2 h after the split) or was finalized. Upload the document again with docextract extract.',
  chunk_source_lost: 'The server lost the staged file. Upload the document again with docextract extract.',
  chunk_in_progress: 'Another request is processing this chunk. Try again shortly; a stuck claim frees up after 120 s.',
  extraction_failed: 'The service could not extract this document. Check the file; a synchronous failure is already charged.',
  persist_failed: 'The service failed to store the chunk (no credits charged). Retry: docextract process <chunk_job_id>',
  server_error: 'The service had an internal error. Try again later.',
  server_busy: 'The service is busy. Try again in a few minutes.',
  unknown_model: 'List the models this key may use: docextract models',
  invalid_options: 'The options field was rejected; check --model.',
  file_too_large: 'The service accepts files up to 10 MB.',
  page_limit_exceeded: 'The service accepts PDFs of up to 150 pages. Split the file first.',
  invalid_file_type: 'The service accepts PDF, JPEG and PNG files, judged by content.',
  invalid_file: 'The file could not be read as a PDF or image.',
  proxy_auth_required:
    'The proxy asks for credentials (HTTP 407). Put them in the proxy URL, percent-encoded, e.g. HTTPS_PROXY=http://user:p%40ss@proxy:3128 for the password "p@ss" (encode @ : / % # ? and spaces, as encodeURIComponent does). If the service needs no proxy, add its host to NO_PROXY.',
  network_error: 'Could not reach the service. Check --base-url, the network and any proxy (HTTPS_PROXY, NO_PROXY).',
  timeout: 'The service did not answer in time. Try again later.',
  malformed_response: 'The service (or a proxy in between) sent an answer that is not the API\'s JSON. Try again later.',
  response_too_large: 'The answer was far larger than any real one (a broken server or proxy?); docextract stopped reading it. Check --base-url and any proxy; an upload that got one may have been charged.',
  response_validation_failed: 'The service answered, but not as API v3.1 specifies. Check --base-url points at a v3.1 service.',
  missing_api_key: 'Set a key: docextract config set api-key, or DOCEXTRACT_API_KEY, or --api-key.',
};

export function hintFor(code: string): string | undefined {
  return HINTS[code];
}
