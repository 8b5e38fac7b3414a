import picomatch from 'picomatch';
import { ALL_PAGES, parsePageSelection, type PageSelection } from '../files/page-selection.js';

export interface PageRule {
  /** As written, relative to the inputs' base, e.g. `invoices/**`. */
  glob: string;
  selection: PageSelection;
  matches: (relativePath: string) => boolean;
}

/**
 * Which pages of each file to extract: `GLOB=SELECTION` rules, first match
 * wins, then the bare `SELECTION` default, then every page. Globs match the
 * path relative to the inputs' common base, as `--model` rules do.
 */
export class PageRules {
  private constructor(
    readonly rules: readonly PageRule[],
    readonly fallback: PageSelection | undefined,
  ) {}

  static none(): PageRules {
    return new PageRules([], undefined);
  }

  /**
   * Parse `--pages` values (repeatable) or the config key `pages`
   * (`;`-separated: selections hold commas). Throws with a message naming the
   * bad entry.
   */
  static parse(specs: readonly string[]): PageRules {
    const rules: PageRule[] = [];
    let fallback: PageSelection | undefined;
    for (const spec of specs) {
      const equals = spec.lastIndexOf('=');
      if (equals === -1) {
        const selection = parsePageSelection(spec);
        if (fallback !== undefined && textOf(fallback) !== textOf(selection)) {
          throw new Error(`two default page selections ("${textOf(fallback)}" and "${textOf(selection)}"); give one bare SELECTION, and GLOB=SELECTION for the rest`);
        }
        fallback = selection;
        continue;
      }
      const glob = spec.slice(0, equals).trim().replace(/^\.\//, '');
      if (!glob) throw new Error(`"${spec}" has no glob before "="; write GLOB=SELECTION, e.g. 'invoices/**=1'`);
      if (!spec.slice(equals + 1).trim()) throw new Error(`"${spec}" has no pages after "="; write GLOB=SELECTION, e.g. 'invoices/**=1,-1'`);
      rules.push({ glob, selection: parsePageSelection(spec.slice(equals + 1)), matches: picomatch(glob, { dot: true }) });
    }
    return new PageRules(rules, fallback);
  }

  /** Parse the config form: rules separated by `;`. */
  static parseList(text: string): PageRules {
    return PageRules.parse(
      text
        .split(';')
        .map((part) => part.trim())
        .filter(Boolean),
    );
  }

  get isEmpty(): boolean {
    return this.rules.length === 0 && this.fallback === undefined;
  }

  /** The pages to extract of a file (every page when nothing says otherwise). */
  selectionFor(relativePath: string): PageSelection {
    const path = relativePath.split('\\').join('/');
    return this.rules.find((rule) => rule.matches(path))?.selection ?? this.fallback ?? ALL_PAGES;
  }
}

function textOf(selection: PageSelection): string {
  return selection.all ? 'all' : selection.text;
}
