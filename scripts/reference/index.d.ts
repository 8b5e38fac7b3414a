/** Types for scripts/reference/index.js (test/unit/docs/reference.test.ts imports it). */
export const REFERENCE_FILES: readonly string[];

interface HelpItem {
  term: string;
  description: string;
}

/** What the reference is made of; only what the test reads is typed here. */
export interface ReferenceFacts {
  cli: { globalOptions: HelpItem[]; commands: { path: string[]; options: HelpItem[] }[] };
}

export function referenceFacts(): Promise<ReferenceFacts>;
export function buildReference(facts?: ReferenceFacts): Promise<Record<string, string>>;
