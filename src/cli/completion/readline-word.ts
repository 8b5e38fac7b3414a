/**
 * The text readline will replace: what follows the last blank or word-break
 * character (COMP_WORDBREAKS, `"'><=;|&(:` by default) outside quotes.
 */
export function readlineWord(line: string, wordBreaks: string): string {
  let start = 0;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === '\\') {
      i++;
    } else if (char === "'" || char === '"') {
      quote = char;
      start = i + 1;
    } else if (/\s/.test(char) || wordBreaks.includes(char)) {
      start = i + 1;
    }
  }
  return line.slice(start);
}
