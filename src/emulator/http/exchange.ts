import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { ApiFailure } from '../api-failure.js';
import { NO_FAULT, type FaultDraw } from '../fault-injector.js';
import type { EmulatorEndpoint, EmulatorRequestLog, FaultKind } from '../types.js';

export interface ExchangeEnvironment {
  now: () => number;
  latencyMs: Partial<Record<EmulatorEndpoint, number>>;
  slowMs: number;
  countFault(endpoint: EmulatorEndpoint, kind: FaultKind): void;
  log?: (entry: EmulatorRequestLog) => void;
}

function sleep(ms: number): Promise<void> {
  // Unref'd: a pending delay must not keep a closed emulator's process alive.
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * One request and its answer. It owns the endpoint's simulated delay (spent
 * once, where the handler does its "work", or just before answering) and the
 * answer-time faults: reset_after and truncated_json.
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

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly endpoint: EmulatorEndpoint | null,
    readonly url: URL,
    private readonly env: ExchangeEnvironment,
  ) {
    this.pendingDelayMs = endpoint === null ? 0 : (env.latencyMs[endpoint] ?? 0);
    this.receivedAt = env.now();
  }

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

  /** Spends the simulated processing time; later calls return at once. */
  async spendDelay(): Promise<void> {
    const delay = this.pendingDelayMs;
    this.pendingDelayMs = 0;
    if (delay > 0) await sleep(delay);
  }

  async sendJson(status: number, body: unknown, headers: Record<string, string> = {}, code?: string): Promise<void> {
    await this.spendDelay();
    if (this.answered) return;
    if (this.fault.primary === 'reset_after') {
      this.countFault('reset_after');
      this.reset(code);
      return;
    }
    let text = JSON.stringify(body);
    if (this.fault.primary === 'truncated_json') {
      this.countFault('truncated_json');
      text = text.slice(0, Math.floor(text.length / 2));
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
    this.res.writeHead(status, { ...headers, 'content-type': contentType, 'content-length': String(body.length) });
    this.res.end(body);
    this.logAnswer(status, code);
  }

  private logAnswer(status: number | 'reset', code: string | undefined): void {
    this.env.log?.({
      at: this.env.now(),
      method: this.req.method ?? 'GET',
      path: this.url.pathname,
      endpoint: this.endpoint,
      status,
      ...(code === undefined ? {} : { code }),
      ...(this.fault.primary === null ? {} : { fault: this.fault.primary }),
      durationMs: this.elapsedMs(),
    });
  }
}
