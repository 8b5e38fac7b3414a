import { ALL_PAGES, parsePageSelection, type PageSelection } from '../files/page-selection.js';
import { ruleList } from '../config/grammar/rule-list.js';
import { firstMatch, parsePathRules, type PathRule, type RuleKind } from '../config/grammar/path-rules.js';

/** One `GLOB=SELECTION` rule. */
export type PageRule = PathRule<PageSelection>;

const PAGE_RULES: RuleKind<PageSelection> = {
  parse: parsePageSelection,
  text: (selection) => (selection.all ? 'all' : selection.text),
  placeholder: 'SELECTION',
  example: 'invoices/**=1,-1',
};

/**
 * Which pages of each file to extract: `GLOB=SELECTION` rules, first match
 * wins, then the bare `SELECTION` default, then every page. Globs match the
 * path relative to the inputs' common base, as `--model` rules do.
 */
export class PageRules {
  private constructor(
    /** The `GLOB=SELECTION` rules, in the order given; the first whose glob matches wins. */
    readonly rules: readonly PageRule[],
    /** The bare `SELECTION` for files no rule matches; undefined when none was given (then every page). */
    readonly fallback: PageSelection | undefined,
  ) {}

  /** No rule and no default: every page of every file. */
  static none(): PageRules {
    return new PageRules([], undefined);
  }

  /**
   * Parse `--pages` values (repeatable) or the config key `pages`
   * (`;`-separated: selections hold commas). Throws with a message naming the
   * bad entry.
   */
  static parse(specs: readonly string[]): PageRules {
    const { rules, fallback } = parsePathRules(specs, PAGE_RULES);
    return new PageRules(rules, fallback);
  }

  /** Parse the config form: rules separated by `;`. */
  static parseList(text: string): PageRules {
    return PageRules.parse(ruleList(text));
  }

  /** True when nothing was given, so every file is extracted whole. */
  get isEmpty(): boolean {
    return this.rules.length === 0 && this.fallback === undefined;
  }

  /** The pages to extract of a file (every page when nothing says otherwise). */
  selectionFor(relativePath: string): PageSelection {
    return firstMatch(this.rules, relativePath) ?? this.fallback ?? ALL_PAGES;
  }
}
