import { Readable } from 'node:stream';
import { systemClock } from '../util/clock.js';
import type { CliDeps } from './context.js';
import { HELP_WIDTH_OFF_TERMINAL } from './help-requests.js';
import type { CliIO } from './io.js';
import { helpRequests, main } from './main.js';

/**
 * Every help text, rendered by the real CLI at build time (scripts/build-help-texts.js writes them to
 * dist/cli/help-texts.json): bin/help-answers.cjs answers `docextract --help` and the other help
 * requests from them without loading commander or the CLI, which costs more than the help is worth.
 */
export interface HelpTexts {
  /** The width commander wrapped them to: its width when the stream is not a terminal. */
  helpWidth: number;
  /** Each text once (`help config` and `config --help` print the same one). */
  texts: string[];
  /** By helpRequestKey(argv after `docextract`): which stream gets which text, and the exit code. */
  answers: Record<string, HelpAnswer>;
}

interface HelpAnswer {
  stream: 'stdout' | 'stderr';
  /** Index into HelpTexts.texts. */
  text: number;
  code: number;
}

/** No argument can hold a NUL: argv joined by it is a key that no other argv shares. */
function helpRequestKey(args: readonly string[]): string {
  return args.join('\0');
}

/** Runs the CLI once per help request (help-requests.ts) and keeps what it printed, where, and its exit code. */
export async function renderHelpTexts(): Promise<HelpTexts> {
  const texts: string[] = [];
  const answers: Record<string, HelpAnswer> = {};
  for (const args of helpRequests(capturingDeps().deps)) {
    const { deps, printed } = capturingDeps();
    const code = await main(['node', 'docextract', ...args], deps);
    const streams = (['stdout', 'stderr'] as const).filter((stream) => printed[stream] !== '');
    const [stream] = streams;
    if (stream === undefined || streams.length > 1 || !printed[stream].startsWith('Usage: docextract')) {
      throw new Error(`\`docextract ${args.join(' ')}\` is listed as a help request, but it printed ${JSON.stringify(printed).slice(0, 300)} (exit ${code})`);
    }
    const seen = texts.indexOf(printed[stream]);
    answers[helpRequestKey(args)] = { stream, text: seen >= 0 ? seen : texts.push(printed[stream]) - 1, code };
  }
  return { helpWidth: HELP_WIDTH_OFF_TERMINAL, texts, answers };
}

/** Streams that are not terminals (so commander wraps at HELP_WIDTH_OFF_TERMINAL), kept as text. */
function capturingDeps(): { deps: CliDeps; printed: { stdout: string; stderr: string } } {
  const printed = { stdout: '', stderr: '' };
  const io: CliIO = {
    stdout: { write: (chunk: string) => (printed.stdout += chunk), isTTY: false },
    stderr: { write: (chunk: string) => (printed.stderr += chunk), isTTY: false },
    stdin: Readable.from([]),
    env: {},
    cwd: process.cwd(),
  };
  return { deps: { io, clock: systemClock, args: [] }, printed };
}
