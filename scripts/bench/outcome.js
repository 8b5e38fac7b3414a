// How a CLI run ended: NDJSON statuses counted as they stream, and what makes a run a failure.

export function countStatus(statuses, line) {
  if (line.trim() === '') return;
  try {
    const status = JSON.parse(line).status ?? 'unknown';
    statuses[status] = (statuses[status] ?? 0) + 1;
  } catch {
    statuses['not JSON'] = (statuses['not JSON'] ?? 0) + 1;
  }
}

/** A run that did not end with exit 0 and every file complete is a failure, not a missed target. */
export function checkRun(section, result, statuses, expected) {
  if (result.timedOut) section.problem(`CLI timed out after ${Math.round(result.wallMs / 1000)} s and was killed`);
  else if (result.code !== 0) section.problem(`CLI exited ${result.code ?? result.signal}: ${lastLine(result.stderrTail)}`);
  if ((statuses.complete ?? 0) !== expected) section.problem(`expected ${expected} complete, got ${JSON.stringify(statuses)}`);
}

export function lastLine(text) {
  return text.trim().split('\n').slice(-2).join(' | ').slice(0, 300);
}
