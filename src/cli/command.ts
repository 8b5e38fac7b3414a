import type { Command } from 'commander';
import type { CliContext } from './context.js';

/** What a command reports back to main, which alone turns it into an exit code. */
export type CommandOutcome = 'success' | 'work-failed' | 'checks-failed' | 'budget-exhausted' | 'interrupted';

export type CommandHandler<A extends unknown[]> = (ctx: CliContext, ...args: A) => Promise<CommandOutcome | void>;

/**
 * Wraps a handler as a commander action: builds the context from the global
 * flags, runs, records the outcome. The handler is loaded only when its
 * command runs, so that `--help` loads nothing but the command definitions.
 */
export type ActionFactory = <A extends unknown[]>(load: () => Promise<CommandHandler<A>>) => (...commanderArgs: unknown[]) => Promise<void>;

export type CommandRegistration = (program: Command, action: ActionFactory) => void;
