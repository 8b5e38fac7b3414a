import picomatch from 'picomatch';
import { normaliseModel } from '../batch/question.js';

/** One `GLOB=MODEL` rule. */
export interface ModelRule {
  /** As written, relative to the inputs' base, e.g. `ids/**`. */
  glob: string;
  /** The document type for files it matches, lowercased and trimmed. */
  model: string;
  /** Whether a path relative to the inputs' base, with `/` separators, matches `glob`. */
  matches: (relativePath: string) => boolean;
}

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
    const rules: ModelRule[] = [];
    let fallback: string | undefined;
    for (const spec of specs) {
      const equals = spec.lastIndexOf('=');
      if (equals === -1) {
        const model = normaliseModel(spec);
        if (!model) throw new Error(`empty document type in "${spec}"`);
        if (fallback !== undefined && fallback !== model) throw new Error(`two default document types ("${fallback}" and "${model}"); give one bare MODEL, and GLOB=MODEL for the rest`);
        fallback = model;
        continue;
      }
      const glob = spec.slice(0, equals).trim().replace(/^\.\//, '');
      const model = normaliseModel(spec.slice(equals + 1));
      if (!glob) throw new Error(`"${spec}" has no glob before "="; write GLOB=MODEL, e.g. 'ids/**=id_card'`);
      if (!model) throw new Error(`"${spec}" has no document type after "="; write GLOB=MODEL, e.g. 'ids/**=id_card'`);
      rules.push({ glob, model, matches: picomatch(glob, { dot: true }) });
    }
    return new ModelRules(rules, fallback);
  }

  /** Parse the config form: rules separated by `;`. */
  static parseList(text: string): ModelRules {
    return ModelRules.parse(
      text
        .split(';')
        .map((part) => part.trim())
        .filter(Boolean),
    );
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
    const path = relativePath.split('\\').join('/');
    return this.rules.find((rule) => rule.matches(path))?.model ?? this.fallback;
  }

  /** Every name a run may send, for the free check against `models`. */
  names(): string[] {
    return [...new Set([...this.rules.map((rule) => rule.model), ...(this.fallback ? [this.fallback] : [])])];
  }
}
