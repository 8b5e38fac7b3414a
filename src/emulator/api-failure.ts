/**
 * An answer in the service's error envelope. Handlers throw it so that the
 * order of checks reads top to bottom; the dispatcher turns it into a response.
 */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiFailure';
  }

  /** The spec's error envelope (section 2.8). */
  toEnvelope(): { success: false; error: { code: string; message: string; details?: Record<string, unknown> } } {
    return {
      success: false,
      error: { code: this.code, message: this.message, ...(this.details === undefined ? {} : { details: this.details }) },
    };
  }
}
