'use strict';
// `docextract --help` (and -h, help, help <cmd>, <cmd> --help, no arguments) answered from the texts
// the build rendered with the real CLI (dist/cli/help-texts.json; src/cli/help-texts.ts says how),
// with node:fs alone: loading commander and the CLI costs more than printing the help is worth.
// Whenever it cannot be sure that it prints byte for byte what the CLI would, it answers nothing
// and the CLI runs: an argv it does not know, a terminal of another width, texts rendered from
// another build of the CLI.
const { existsSync, readdirSync, readFileSync } = require('node:fs');
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
  // Only now, for a help request: every other command would read the whole build (4 MB) for nothing.
  if (!renderedFrom(dist, helpTexts)) return undefined;
  stream.write(helpTexts.texts[answer.text]);
  return answer.code;
}

/** The texts, unless missing or unreadable. */
function readHelpTexts(dist) {
  try {
    return JSON.parse(readFileSync(join(dist, 'cli', 'help-texts.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Whether the texts were rendered from the build in `dist`, not another (tsc ran again since).
 * Only a checkout can re-emit dist/ without the build's last step (a `tsc` alone, `tsc --watch`):
 * there tsc has its project, tsconfig.build.json, beside dist/. The package has none: its dist/
 * was written once, by prepack's whole build, texts included, and reading all 4 MB of it to
 * print the help cost a third of the start-up (issue 53).
 */
function renderedFrom(dist, helpTexts) {
  if (!existsSync(join(dist, '..', 'tsconfig.build.json'))) return true;
  try {
    // Keyed by content, never by file times: `tsc --watch` rewrites only the files it changed, and
    // npm pack gives every file one and the same time.
    return helpTexts.builtFrom === builtKey(dist);
  } catch {
    return false;
  }
}

/**
 * The content of the built CLI as one key: the path and bytes of every .js file in `dist`, which
 * is all the help is rendered from besides commander. Recorded by the build beside the texts
 * (scripts/build-help-texts.js), computed again before each answer in a checkout.
 * @param {string} dist
 * @returns {string}
 */
function builtKey(dist) {
  // Required here, not at the top: the package never computes the key, and loading crypto costs a start.
  const hash = require('node:crypto').createHash('sha256');
  const files = readdirSync(dist, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js'))
    .map((file) => file.split('\\').join('/'))
    .sort();
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(dist, file)))
      .update('\0');
  return hash.digest('hex');
}

module.exports = { answerHelp, builtKey };
