/** What the server says of a job now. */
export type ServerJobView =
  | {
      /** The job's status on the service: `partial` while chunks are outstanding or failed. */
      status: 'complete' | 'partial';
      /** Chunks the service reports processed; null when its answer leaves it out. */
      chunks_done: number | null;
      /** Chunks the job was split into; null when the answer leaves it out. */
      chunks_total: number | null;
      /** 1-based pages still being processed; empty when none (or not reported). */
      pending_pages: number[];
      /** 1-based pages whose chunk failed; empty when none (or not reported). */
      failed_pages: number[];
    }
  | {
      /** The service could not say (the job is gone, unknown, or the asking gave up). */
      status: 'error';
      /** The API error's code, e.g. `job_expired` or `rate_limit_exceeded`. */
      code: string;
      /** The service's message: untrusted text (render it with care). */
      message: string;
    };
