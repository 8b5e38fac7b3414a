import { normaliseModel } from '../batch/question.js';
import { ruleList } from '../config/grammar/rule-list.js';
import { firstMatch, parsePathRules, type PathRule, type RuleKind } from '../config/grammar/path-rules.js';

/** One `GLOB=MODEL` rule; `value` is the document type, lowercased and trimmed. */
export type ModelRule = PathRule<string>;

const MODEL_RULES: RuleKind<string> = {
  parse: (text) => {
    const model = normaliseModel(text);
    if (!model) throw new Error(`empty document type in "${text}"`);
    return model;
  },
  text: (model) => model,
  placeholder: 'MODEL',
  example: 'ids/**=id_card',
};

/**
 * Which document type each file gets: `GLOB=MODEL` rules, first match wins,
 * then the bare `MODEL` default, then the service's own default. Globs match
 * the path relative to the inputs' common base, with `/` separators.
 * (picomatch is what fast-glob itself matches with, so a rule means what the
 * same glob means on the command line.)
 */
export class ModelRules {
  private constructor(
    /** The `GLOB=MODEL` rules, in the order given: the first that matches wins. */
    readonly rules: readonly ModelRule[],
    /** For files no rule matches; undefined leaves the choice to the service (invoice). */
    readonly fallback: string | undefined,
  ) {}

  /** No rules and no default: every file gets the service's default (invoice). */
  static none(): ModelRules {
    return new ModelRules([], undefined);
  }

  /**
   * Parse `--model` values (repeatable) or the config key `models`
   * (`;`-separated: globs may hold commas). Throws with a message naming the
   * bad entry.
   */
  static parse(specs: readonly string[]): ModelRules {
    const { rules, fallback } = parsePathRules(specs, MODEL_RULES);
    return new ModelRules(rules, fallback);
  }

  /** Parse the config form: rules separated by `;`. */
  static parseList(text: string): ModelRules {
    return ModelRules.parse(ruleList(text));
  }

  /** This set, with `fallback` as the default when it has none of its own. */
  withFallback(fallback: string | undefined): ModelRules {
    return this.fallback !== undefined || fallback === undefined ? this : new ModelRules(this.rules, normaliseModel(fallback));
  }

  /** True when there are neither rules nor a default. */
  get isEmpty(): boolean {
    return this.rules.length === 0 && this.fallback === undefined;
  }

  /** The model to send for a file, or undefined for the service's default. */
  modelFor(relativePath: string): string | undefined {
    return firstMatch(this.rules, relativePath) ?? this.fallback;
  }

  /** Every name a run may send, for the free check against `models`. */
  names(): string[] {
    return [...new Set([...this.rules.map((rule) => rule.value), ...(this.fallback ? [this.fallback] : [])])];
  }
}
