/**
 * The send log's line grammar, read the one way by every reader (the gate's
 * load, its compaction, `usage`):
 *
 *   `<ms>`        a send at ms;
 *   `<from>><to>` the send recorded at `from` was counted at `to` instead
 *                 (RequestGate.restamp): it replaces that send, it is no second one;
 *   `<from>>`     the send recorded at `from` never reached the server (unsent).
 *
 * A send's id is its instant: two sends at the same millisecond are alike, so
 * replacing either counts the same. A replacement whose send is no longer in
 * the file (compacted away as too old) still counts its new instant. A reader
 * that predates the replacement lines drops them as garbage and counts the
 * first instant once.
 */

/** What a send log's text holds once every replacement is applied. */
export interface SendLogContent {
  /** Send times, ascending, each request once. */
  times: number[];
  /** Lines that hold no send of their own: garbage, a torn tail, replacements and the lines they replaced. */
  superseded: number;
  /** The last line had no newline (cut by kill -9). */
  torn: boolean;
}

const SEND = /^\d{1,16}$/;
const MOVE = /^(\d{1,16})>(\d{1,16})?$/;

export function sendLine(atMs: number): string {
  return `${Math.round(atMs)}\n`;
}

/** The line that moves the send recorded at `fromMs` to `toMs`, or removes it (toMs undefined). */
export function moveLine(fromMs: number, toMs: number | undefined): string {
  return `${Math.round(fromMs)}>${toMs === undefined ? '' : Math.round(toMs)}\n`;
}

/** Parse the log, applying each replacement to the send it names (the last one at that instant still there). */
export function parseSendLog(text: string): SendLogContent {
  const lines = text.split('\n');
  const torn = lines.pop() !== '';
  // Instant -> how many sends there; a multiset, since sends may share a millisecond.
  const counts = new Map<number, number>();
  const add = (at: number, by: number): void => {
    const next = (counts.get(at) ?? 0) + by;
    if (next > 0) counts.set(at, next);
    else counts.delete(at);
  };
  let superseded = torn ? 1 : 0;
  for (const line of lines) {
    if (SEND.test(line)) {
      add(Number(line), 1);
      continue;
    }
    const move = MOVE.exec(line);
    superseded++;
    if (!move) continue;
    const from = Number(move[1]);
    if (counts.has(from)) {
      add(from, -1);
      superseded++;
    }
    if (move[2] !== undefined) add(Number(move[2]), 1);
  }
  const times: number[] = [];
  for (const [at, count] of counts) for (let i = 0; i < count; i++) times.push(at);
  times.sort((a, b) => a - b);
  return { times, superseded, torn };
}
