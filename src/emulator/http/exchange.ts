import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { ApiFailure } from '../api-failure.js';
import { NO_FAULT, type FaultDraw } from '../fault-injector.js';
import type { ServerClock } from '../server-clock.js';
import type { EmulatorEndpoint, EmulatorRequestLog, FaultKind } from '../types.js';
import { streamOversizedBody, trickleThenStall } from './lying-bodies.js';
import { addExtraHeaders, garbleDate, garbleRateHeaders, normalisedHeaders, type AnswerHeaders, type Pick } from './lying-headers.js';
import { corruptOneField } from './wrong-field.js';

export interface ExchangeEnvironment {
  now: () => number;
  /** What the server shows of the time: every answer's Date comes from it. */
  clock: ServerClock;
  /** The simulated processing time of one answer of this endpoint (ms). */
  latencyFor(endpoint: EmulatorEndpoint): number;
  /** A test's hold on the answers of an endpoint (EmulatorOptions.holdAnswer). */
  holdAnswer?: (endpoint: EmulatorEndpoint) => Promise<void> | undefined;
  /** A test's hold on one document's requests (EmulatorOptions.holdDocument). */
  holdDocument?: (endpoint: EmulatorEndpoint, sha256: string) => Promise<void> | undefined;
  slowMs: number;
  /** Inflated size of oversized_body and gzip_bomb. */
  oversizeBytes: number;
  /** The gzip_bomb body, built once on first use. */
  gzipBomb(): Promise<Buffer>;
  /** The fault PRNG, for faults that choose what to break. */
  pick: Pick;
  countFault(endpoint: EmulatorEndpoint, kind: FaultKind): void;
  log?: (entry: EmulatorRequestLog) => void;
}

/** A fault's success status: the real one when it was a success, else 200 (the lie is a 2xx). */
function successStatus(status: number): number {
  return status >= 200 && status < 300 ? status : 200;
}

function sleep(ms: number): Promise<void> {
  // Unref'd: a pending delay must not keep a closed emulator's process alive.
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * One request and its answer. It owns the endpoint's simulated delay (spent
 * once, where the handler does its "work", or just before answering), the
 * Date header of every answer, and the answer-time faults (ANSWER_FAULTS):
 * the work is done, then the answer lies.
 */
export class Exchange {
  private readonly startedAt = performance.now();
  /**
   * When the request arrived (its headers), on the emulator's clock. The rate
   * windows count this instant, as a server's front door would, not the later
   * moment the body has been read and parsed: a busy event loop here must not
   * look like a client that sent too fast.
   */
  readonly receivedAt: number;
  private fault: FaultDraw = NO_FAULT;
  private pendingDelayMs: number;
  private answered = false;
  /** For the request log: the document concerned, and the credits charged. */
  private sha256: string | undefined;
  private credits = 0;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly endpoint: EmulatorEndpoint | null,
    readonly url: URL,
    private readonly env: ExchangeEnvironment,
  ) {
    this.pendingDelayMs = endpoint === null ? 0 : env.latencyFor(endpoint);
    this.receivedAt = env.now();
    // The hold in force when the request arrived (a request already under way when a test starts holding is not held).
    this.hold = endpoint === null ? undefined : env.holdAnswer?.(endpoint);
  }

  /** A test's hold on this answer, waited for once before it is sent. */
  private hold: Promise<void> | undefined;

  get primaryFault(): FaultKind | null {
    return this.fault.primary;
  }

  /** Real milliseconds since the request arrived (processing_time_ms). */
  elapsedMs(): number {
    return Math.round(performance.now() - this.startedAt);
  }

  setFaults(draw: FaultDraw): void {
    this.fault = draw;
    if (draw.slow && this.endpoint !== null) {
      this.countFault('slow');
      this.pendingDelayMs += this.env.slowMs;
    }
  }

  countFault(kind: FaultKind): void {
    if (this.endpoint !== null) this.env.countFault(this.endpoint, kind);
  }

  /** The document this request is about (for the request log, and a test's hold on that document). */
  concerns(sha256: string): void {
    this.sha256 = sha256;
    if (this.endpoint !== null) this.documentHold = this.env.holdDocument?.(this.endpoint, sha256);
  }

  /** A test's hold on the document's requests, waited for once with the delay. */
  private documentHold: Promise<void> | undefined;

  /** Credits charged while handling this request (for the request log). */
  noteCharge(credits: number): void {
    this.credits += credits;
  }

  /** Spends the simulated processing time; later calls return at once. */
  async spendDelay(): Promise<void> {
    const delay = this.pendingDelayMs;
    this.pendingDelayMs = 0;
    if (delay > 0) await sleep(delay);
    const holds = [this.hold, this.documentHold];
    this.hold = this.documentHold = undefined;
    await Promise.all(holds);
  }

  async sendJson(status: number, body: unknown, headers: Record<string, string> = {}, code?: string): Promise<void> {
    await this.spendDelay();
    if (this.answered) return;
    if (this.fault.primary === 'reset_after') {
      this.countFault('reset_after');
      this.reset(code);
      return;
    }
    if (this.fault.primary === 'wrong_field') {
      // A copy: the handler's objects may be live state.
      const copy = structuredClone(body);
      if (corruptOneField(copy, this.env.pick) !== null) {
        this.countFault('wrong_field');
        body = copy;
      }
    }
    let text = JSON.stringify(body);
    if (this.fault.primary === 'truncated_json') {
      this.countFault('truncated_json');
      text = text.slice(0, Math.floor(text.length / 2));
    }
    const fault = this.fault.primary;
    if (fault === 'oversized_body' || fault === 'gzip_bomb' || fault === 'trickle_stop') {
      await this.sendStreamingLie(fault, status, text, headers, code);
      return;
    }
    this.write(status, 'application/json', text, headers, code);
  }

  sendFailure(failure: ApiFailure): Promise<void> {
    return this.sendJson(failure.status, failure.toEnvelope(), failure.headers, failure.code);
  }

  async sendHtml(status: number, html: string): Promise<void> {
    await this.spendDelay();
    if (!this.answered) this.write(status, 'text/html', html, {}, undefined);
  }

  /** Drops the connection without an answer. */
  reset(code?: string): void {
    if (this.answered) return;
    this.answered = true;
    this.req.socket.destroy();
    this.logAnswer('reset', code);
  }

  get isAnswered(): boolean {
    return this.answered;
  }

  private write(status: number, contentType: string, text: string, headers: Record<string, string>, code: string | undefined): void {
    this.answered = true;
    const body = Buffer.from(text, 'utf8');
    this.res.writeHead(status, { ...this.answerHeaders(headers), 'content-type': contentType, 'content-length': String(body.length) });
    this.res.end(body);
    this.logAnswer(status, code);
  }

  /**
   * The answer's headers: its own, the Date on the server's clock (Node's
   * automatic one would follow the real clock, not the injected one), then
   * whichever header fault was drawn.
   */
  private answerHeaders(headers: Record<string, string>): AnswerHeaders {
    this.res.sendDate = false;
    const shownNow = this.env.clock.shown(this.env.now());
    const out = normalisedHeaders(headers);
    out.date = new Date(shownNow).toUTCString();
    const fault = this.fault.primary;
    if (fault === 'extra_headers') addExtraHeaders(out, shownNow);
    else if (fault === 'ratelimit_garbage') garbleRateHeaders(out, shownNow, this.env.pick);
    else if (fault === 'date_garbage') garbleDate(out, shownNow, this.env.pick);
    else return out;
    this.countFault(fault);
    return out;
  }

  /** Answers that are delivered wrongly rather than worded wrongly; logged when the connection closes. */
  private async sendStreamingLie(
    fault: 'oversized_body' | 'gzip_bomb' | 'trickle_stop',
    status: number,
    text: string,
    headers: Record<string, string>,
    code: string | undefined,
  ): Promise<void> {
    this.answered = true;
    this.countFault(fault);
    const out = this.answerHeaders(headers);
    let bodyBytes: number;
    if (fault === 'oversized_body') {
      status = successStatus(status);
      bodyBytes = await streamOversizedBody(this.res, status, out, this.env.oversizeBytes);
    } else if (fault === 'gzip_bomb') {
      status = successStatus(status);
      const bomb = await this.env.gzipBomb();
      this.res.writeHead(status, { ...out, 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
      this.res.end(bomb);
      bodyBytes = bomb.length;
    } else {
      const timing = { intervalMs: Math.max(1, Math.round(this.env.slowMs / 10)), closeAfterMs: this.env.slowMs * 10 };
      bodyBytes = await trickleThenStall(this.res, status, { ...out, 'content-type': 'application/json' }, Buffer.from(text, 'utf8'), timing);
    }
    this.logAnswer(status, code, bodyBytes);
  }

  private logAnswer(status: number | 'reset', code: string | undefined, bodyBytes?: number): void {
    this.env.log?.({
      at: this.env.now(),
      method: this.req.method ?? 'GET',
      path: this.url.pathname,
      endpoint: this.endpoint,
      status,
      ...(code === undefined ? {} : { code }),
      ...(this.fault.primary === null ? {} : { fault: this.fault.primary }),
      durationMs: this.elapsedMs(),
      ...(bodyBytes === undefined ? {} : { bodyBytes }),
      ...(this.sha256 === undefined ? {} : { sha256: this.sha256 }),
      ...(this.credits === 0 ? {} : { credits: this.credits }),
    });
  }
}
