'use strict';
// `docextract --help` (and -h, help, help <cmd>, <cmd> --help, no arguments) answered from the texts
// the build rendered with the real CLI (dist/cli/help-texts.json; src/cli/help-texts.ts says how),
// with node:fs alone: loading commander and the CLI costs more than printing the help is worth.
// Whenever it cannot be sure that it prints byte for byte what the CLI would, it answers nothing
// and the CLI runs: an argv it does not know, a terminal of another width, texts older than the CLI.
const { readFileSync, statSync } = require('node:fs');
const { join } = require('node:path');

/**
 * Prints the help that `args` (argv after `docextract`) asks for and returns the exit code, or
 * returns undefined having printed nothing.
 * @param {string[]} args
 * @param {{ stdout: { write(text: string): unknown, isTTY?: boolean, columns?: number }, stderr: { write(text: string): unknown, isTTY?: boolean, columns?: number } }} streams
 * @param {string} dist the built CLI's folder
 * @returns {number | undefined}
 */
function answerHelp(args, streams, dist) {
  const helpTexts = readHelpTexts(dist);
  // The key as src/cli/help-texts.ts makes it (helpRequestKey): no argument can hold a NUL.
  const answer = helpTexts?.answers[args.join('\0')];
  if (!answer) return undefined;
  const stream = streams[answer.stream];
  // On a terminal commander wraps to its width: the text fits only the width it was rendered at.
  if (stream.isTTY && (stream.columns ?? helpTexts.helpWidth) !== helpTexts.helpWidth) return undefined;
  stream.write(helpTexts.texts[answer.text]);
  return answer.code;
}

/** The texts, unless missing, unreadable or older than the CLI they describe (tsc ran again since the build). */
function readHelpTexts(dist) {
  const file = join(dist, 'cli', 'help-texts.json');
  try {
    // Not newer but older: npm pack gives every file one and the same time.
    if (statSync(file).mtimeMs < statSync(join(dist, 'cli', 'main.js')).mtimeMs) return undefined;
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

module.exports = { answerHelp };
