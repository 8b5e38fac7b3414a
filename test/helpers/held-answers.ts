/**
 * The hold, release and poll block of the ride-along tests: the emulator holds its answers until the
 * test releases them, so "the second command joined while the first was still at work" is a fact the
 * test waits for (the host's record), never a race with the first command's speed.
 */
import type { EmulatorEndpoint, EmulatorOptions, RunningEmulator } from '../../src/emulator/index.js';
import { runningCommands } from './one-client.js';
import { waitFor } from './wait-for.js';

export interface HeldAnswers {
  /** For the emulator's options: every answer but the free checks (models, health), or those of `endpoints`, waits while held. */
  holdAnswer: NonNullable<EmulatorOptions['holdAnswer']>;
  /** Starts holding (for a hold made with `held: false`): requests arriving from now on wait. */
  hold(): void;
  /** Lets every held answer go, and holds none from now on. */
  release(): void;
}

export interface HoldOptions {
  /** Hold only these endpoints' answers. @default all but models and health */
  endpoints?: readonly EmulatorEndpoint[];
  /** Hold from the start; false waits for `hold()`. @default true */
  held?: boolean;
}

/** A hold lifted once: while it holds, a request it applies to gets a promise settled at the release. */
function releasableHold(held: boolean): { when(applies: boolean): Promise<void> | undefined; hold(): void; release(): void } {
  let holding = held;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    when: (applies) => (holding && applies ? released : undefined),
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      release();
    },
  };
}

export function holdAnswersUntilReleased(options: HoldOptions = {}): HeldAnswers {
  const gate = releasableHold(options.held ?? true);
  // A command's free check of the models comes before it joins: holding it would hold the join.
  const free: readonly EmulatorEndpoint[] = ['models', 'health'];
  const held = (endpoint: EmulatorEndpoint): boolean => (options.endpoints ? options.endpoints.includes(endpoint) : !free.includes(endpoint));
  return { holdAnswer: (endpoint) => gate.when(held(endpoint)), hold: gate.hold, release: gate.release };
}

export interface HeldDocuments {
  /** For the emulator's options: the requests of a document named by `hold` to one of the endpoints wait, their work too (process, result). */
  holdDocument: NonNullable<EmulatorOptions['holdDocument']>;
  /** Holds this document's requests (sha256 of its bytes) from now on. */
  hold(sha256: string): void;
  /** Lets every held request go, and holds none from now on. */
  release(): void;
}

/** One document's work held apart from the rest: "its job was finished after X" becomes a fact the test makes. */
export function holdDocumentsUntilReleased(endpoints: readonly EmulatorEndpoint[]): HeldDocuments {
  const documents = new Set<string>();
  const gate = releasableHold(true);
  return {
    holdDocument: (endpoint, sha256) => gate.when(documents.has(sha256) && endpoints.includes(endpoint)),
    hold(sha256) {
      documents.add(sha256);
    },
    release: gate.release,
  };
}

/** Waits until the host lists a command riding along (role client) in the state folder, and `pid`'s when given. */
export async function waitForClient(stateDir: string, what: string, pid?: number): Promise<void> {
  await waitFor(() => runningCommands(stateDir).some((command) => command.role === 'client' && (pid === undefined || command.pid === pid)), what);
}

/** Resolves at the emulator's first upload: the command that made it holds the state folder and hosts. */
export function firstUpload(emu: RunningEmulator): Promise<void> {
  return new Promise((resolve) => {
    const onEvent = (event: { type: string }): void => {
      if (event.type !== 'upload') return;
      emu.events.off('event', onEvent);
      resolve();
    };
    emu.events.on('event', onEvent);
  });
}

export interface HeldOthers {
  /** For the emulator's options: the requests to one of the endpoints of every document but the spared ones wait, their work too. */
  holdDocument: NonNullable<EmulatorOptions['holdDocument']>;
  /** How many requests the hold has caught so far: "both parts are at the service" is a count the test waits for. */
  held(): number;
  /** Lets every held request go, and holds none from now on. */
  release(): void;
}

/**
 * Every document's requests held but those of `spared` (sha256s of their bytes): the parts of a PDF
 * past the page limit (cut by the command, bytes the test never sees) held while a file beside it
 * goes through.
 */
export function holdDocumentsBut(endpoints: readonly EmulatorEndpoint[], spared: readonly string[]): HeldOthers {
  const gate = releasableHold(true);
  let held = 0;
  return {
    holdDocument: (endpoint, sha256) => {
      const hold = gate.when(!spared.includes(sha256) && endpoints.includes(endpoint));
      if (hold) held += 1;
      return hold;
    },
    held: () => held,
    release: gate.release,
  };
}
