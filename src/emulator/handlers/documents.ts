import { randomBytes } from 'node:crypto';
import { ApiFailure } from '../api-failure.js';
import { hasFailExtractionMarker, sha256Hex } from '../file-inspection.js';
import type { ReceivedBody } from '../http/body.js';
import type { Exchange } from '../http/exchange.js';
import { formField } from '../http/form.js';
import { CHUNK_PAGES, pageRange } from '../job-store.js';
import { parseExtractOptions, type ExtractOptions } from '../options.js';
import { rateHeaders } from '../rate-limiter.js';
import { chargeCredits, emitEvent, requireCredits, type EmulatorState } from '../state.js';
import { documentData, extractPages } from '../synthetic/extract.js';
import { accountOf, admit, rateLimitFailure, type Admission } from './admission.js';
import { documentsForm, inspectUpload, receivedFile, requireUpload } from './upload-validation.js';

interface AcceptedUpload {
  bytes: Buffer;
  sha256: string;
  filename: string;
  pages: number;
  options: ExtractOptions;
}

/** POST /v3.1/documents (section 4.1): synchronous extraction up to 3 pages, a split manifest above. */
export async function handleDocuments(state: EmulatorState, exchange: Exchange, body: ReceivedBody): Promise<void> {
  const form = documentsForm(body, exchange.req.headers['content-type']);
  const received = receivedFile(body, form);
  if (received !== undefined) {
    const sha = sha256Hex(received.data);
    exchange.concerns(sha);
    state.counters.uploadsBySha256[sha] = (state.counters.uploadsBySha256[sha] ?? 0) + 1;
    state.onUpload?.({ sha256: sha, filename: received.filename ?? undefined, bytes: received.data });
  }

  const admission = await admit(state, exchange, { auth: 'bearer', rateLimited: true, capped: true, naturalFaults: ['extraction_failed', 'persist_failed'] });
  if (admission === null) return;
  const account = accountOf(admission);

  const { file, form: uploadForm } = requireUpload(body, form);
  const options = parseExtractOptions(formField(uploadForm, 'options'), account);
  const inspected = await inspectUpload(file.data);
  requireCredits(account, inspected.pages);
  const upload: AcceptedUpload = { bytes: file.data, sha256: sha256Hex(file.data), filename: file.filename ?? 'upload', pages: inspected.pages, options };
  if (inspected.type === 'application/pdf' && inspected.pages > CHUNK_PAGES) {
    await split(state, exchange, admission, upload);
  } else {
    await extractSynchronously(state, exchange, admission, upload);
  }
}

async function extractSynchronously(state: EmulatorState, exchange: Exchange, admission: Admission, upload: AcceptedUpload): Promise<void> {
  const account = accountOf(admission);
  emitEvent(state, { type: 'upload', key: account.key, sha256: upload.sha256, filename: upload.filename });
  await exchange.spendDelay();
  const fault = exchange.primaryFault;
  if (fault === 'extraction_failed' || hasFailExtractionMarker(upload.bytes)) {
    if (fault === 'extraction_failed') exchange.countFault(fault);
    // The spec: a failed synchronous extraction still costs 1 credit.
    chargeCredits(state, exchange, account, Math.min(1, account.creditsRemaining));
    throw new ApiFailure(422, 'extraction_failed', 'The document was accepted but extraction failed.', { pages: upload.pages });
  }
  const pages = extractPages(upload.sha256, upload.options.model, pageRange(1, upload.pages));
  if (fault === 'persist_failed') {
    exchange.countFault(fault);
    throw new ApiFailure(500, 'persist_failed', 'Extraction succeeded but the result could not be stored; no credits were charged.');
  }
  requireCredits(account, upload.pages);
  chargeCredits(state, exchange, account, upload.pages);
  await exchange.sendJson(
    200,
    {
      success: true,
      data: documentData(upload.sha256, upload.options.model, upload.pages, pages),
      processing_time_ms: exchange.elapsedMs(),
      model_used: upload.options.model,
      pages: upload.pages,
      ...(upload.options.storeDb ? { extraction_id: `ext_${randomBytes(12).toString('hex')}` } : {}),
    },
    rateHeaders(admission.rateStatus ?? state.rate.currentStatus(account.key, state.now()), state.clock),
  );
}

async function split(state: EmulatorState, exchange: Exchange, admission: Admission, upload: AcceptedUpload): Promise<void> {
  const account = accountOf(admission);
  const openJobs = state.jobs.openJobs(account.key);
  if (openJobs.length >= state.limits.openJobCap) {
    // A 429 never counts toward the rate windows or the request cap.
    admission.refund();
    state.counters.rateLimited += 1;
    const nextExpiry = Math.min(...openJobs.map((job) => job.expiresAt));
    throw rateLimitFailure(
      state,
      'too_many_open_jobs',
      `This key already has ${openJobs.length} open multi-page jobs; finalize one or wait until one expires.`,
      state.rate.currentStatus(account.key, state.now()),
      {
        open_jobs: openJobs.length,
        max_open_jobs: state.limits.openJobCap,
        next_expiry_at: state.clock.isoDate(nextExpiry),
      },
    );
  }
  // Staging happens at upload; an injected failure here means no job was created.
  const fault = exchange.primaryFault;
  if (fault === 'extraction_failed' || fault === 'persist_failed') {
    exchange.countFault(fault);
    throw fault === 'extraction_failed'
      ? new ApiFailure(422, 'extraction_failed', 'The document could not be staged for processing.')
      : new ApiFailure(500, 'persist_failed', 'The document could not be stored for processing; upload it again.');
  }
  const job = state.jobs.create({
    key: account.key,
    sha256: upload.sha256,
    filename: upload.filename,
    pageCount: upload.pages,
    failsExtraction: hasFailExtractionMarker(upload.bytes),
  });
  emitEvent(state, { type: 'upload', key: account.key, sha256: upload.sha256, filename: upload.filename, jobId: job.id });
  emitEvent(state, { type: 'split', key: account.key, sha256: upload.sha256, filename: upload.filename, jobId: job.id });
  await exchange.sendJson(
    202,
    {
      success: true,
      data: job.chunks.map((chunk) => ({ job_id: chunk.id, pages: `${chunk.firstPage}-${chunk.lastPage}` })),
      job_id: job.id,
      pages: job.pageCount,
      result_url: `${state.baseUrl}/v3.1/jobs/${job.id}/result`,
      expires_at: state.clock.isoDate(job.expiresAt),
      message: `Document split into ${job.chunks.length} chunks. Call POST /v3.1/process?job_id=<chunk job_id> for each chunk, then GET /v3.1/result?job_id=${job.id}.`,
    },
    rateHeaders(admission.rateStatus ?? state.rate.currentStatus(account.key, state.now()), state.clock),
  );
}
