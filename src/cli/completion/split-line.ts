/** The words of a command line up to the cursor, as the shell will pass them, and the quote the last one is open in. */
export interface SplitLine {
  words: string[];
  /** The quote character the last word is still open in (`'` or `"`), if any. */
  openQuote?: string;
}

const COMMAND_SEPARATORS = new Set(['&&', '||', ';', '|', '&']);

/**
 * Bash gives a completion function the raw line (COMP_LINE): split it as the
 * shell would (quotes, backslashes), keeping only the last command of a list
 * (`cd x && docextract ex`). A line ending in a blank ends with an empty word:
 * the word being completed.
 */
export function splitCommandLine(line: string): SplitLine {
  let words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word = (word ?? '') + char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1] as string)) word = (word ?? '') + line[++i];
      else word = (word ?? '') + char;
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= '';
    } else if (char === '\\') {
      word = (word ?? '') + (line[++i] ?? '');
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + char;
    }
    if (quote === undefined && word !== undefined && COMMAND_SEPARATORS.has(word) && /\s/.test(line[i + 1] ?? ' ')) {
      words = [];
      word = undefined;
    }
  }
  words.push(word ?? '');
  return quote ? { words, openQuote: quote } : { words };
}
