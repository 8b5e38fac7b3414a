import { randomBytes } from 'node:crypto';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { titledPdf } from '../helpers/make-pdf.js';

/** A fixed instant, so expiry and reset arithmetic in tests is easy to read. */
export const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);

export function newKey(): string {
  return `sk_${randomBytes(16).toString('hex')}`;
}

/** A clock the test moves by hand. */
export class ManualClock {
  constructor(public time = T0) {}
  readonly now = (): number => this.time;
  advance(ms: number): void {
    this.time += ms;
  }
}

export interface TestEmulator {
  emulator: RunningEmulator;
  url: string;
  key: string;
  clock: ManualClock;
}

/** An emulator on a free port with a manual clock and, unless asked, no rate windows. */
export async function startTestEmulator(options: EmulatorOptions = {}): Promise<TestEmulator> {
  const clock = new ManualClock();
  const key = newKey();
  const emulator = await startEmulator({ rateLimits: [], keys: [key], now: clock.now, seed: 1, ...options });
  return { emulator, url: emulator.url, key: emulator.keys[0] ?? key, clock };
}

export function pngBytes(label = 'png'): Buffer {
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(label)]);
}

export function jpegBytes(label = 'jpeg'): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(label)]);
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

export interface UploadOptions {
  filename?: string;
  /** The options field, sent as a plain string field. */
  options?: string | Record<string, unknown>;
  /** Declared content type of the file part (the emulator must ignore it). */
  type?: string;
  path?: string;
  headers?: Record<string, string>;
}

export function uploadForm(bytes: Buffer, options: UploadOptions = {}): FormData {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: options.type ?? 'application/octet-stream' }), options.filename ?? 'document.pdf');
  if (options.options !== undefined) form.append('options', typeof options.options === 'string' ? options.options : JSON.stringify(options.options));
  return form;
}

export function upload(t: TestEmulator, bytes: Buffer, options: UploadOptions = {}): Promise<Response> {
  return fetch(`${t.url}${options.path ?? '/v3.1/documents'}`, { method: 'POST', headers: options.headers ?? bearer(t.key), body: uploadForm(bytes, options) });
}

export function processChunk(t: TestEmulator, chunkId: string, options: { model?: string; key?: string } = {}): Promise<Response> {
  const init: RequestInit = { method: 'POST', headers: bearer(options.key ?? t.key) };
  if (options.model !== undefined) {
    const form = new FormData();
    form.append('options', JSON.stringify({ model: options.model }));
    init.body = form;
  }
  return fetch(`${t.url}/v3.1/process?job_id=${encodeURIComponent(chunkId)}`, init);
}

export function collect(t: TestEmulator, jobId: string, options: { finalize?: boolean; key?: string } = {}): Promise<Response> {
  const finalize = options.finalize === true ? '&finalize=true' : '';
  return fetch(`${t.url}/v3.1/result?job_id=${encodeURIComponent(jobId)}${finalize}`, { headers: bearer(options.key ?? t.key) });
}

// Response bodies are open maps; tests read them loosely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export async function json(response: Response): Promise<Json> {
  return response.json();
}

/** Expects the error envelope with this status and code; returns the body. */
export async function expectError(response: Response, status: number, code: string): Promise<Json> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status} ${code}, got ${response.status}: ${text}`);
  if (response.headers.get('content-type') !== 'application/json') throw new Error(`content-type ${response.headers.get('content-type')}`);
  const body = JSON.parse(text) as Json;
  if (body.success !== false || body.error?.code !== code || typeof body.error?.message !== 'string') {
    throw new Error(`expected error ${code}, got ${text}`);
  }
  return body;
}

export interface Manifest {
  job_id: string;
  data: { job_id: string; pages: string }[];
  pages: number;
  result_url: string;
  expires_at: string;
  message: string;
}

/** Uploads a PDF that splits and returns its manifest. */
export async function uploadSplit(t: TestEmulator, pages: number, options: { failMarker?: boolean; key?: string } = {}): Promise<Manifest> {
  const response = await upload(t, await titledPdf(pages, undefined, options), options.key === undefined ? {} : { headers: bearer(options.key) });
  if (response.status !== 202) throw new Error(`expected 202, got ${response.status}: ${await response.text()}`);
  return (await response.json()) as Manifest;
}

export function chunkIds(manifest: Manifest): string[] {
  return manifest.data.map((chunk) => chunk.job_id);
}
