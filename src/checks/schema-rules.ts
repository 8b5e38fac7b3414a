import { isAbsolute, resolve } from 'node:path';
import { normaliseModel } from '../batch/question.js';
import { ruleList } from '../config/grammar/rule-list.js';

/** A JSON Schema file attached to a document type. */
export interface SchemaRule {
  /** Normalised, as the service names it (`invoice`). */
  type: string;
  /** As written: absolute, or relative to the folder docextract runs in. */
  file: string;
}

/**
 * Which schema checks each document type: `TYPE=FILE` pairs, from `--schema`
 * (repeatable) or the `schemas` setting (`;`-separated), as `--model` rules
 * are. Parsing reads no file; `loadSchemaChecker` does.
 */
export class SchemaRules {
  private constructor(
    /** One rule per document type (normalised name), with its schema file as given; in the order given. */
    readonly rules: readonly SchemaRule[],
  ) {}

  /** No schema for any type: results are checked by no schema. */
  static none(): SchemaRules {
    return new SchemaRules([]);
  }

  /** Parse `TYPE=FILE` values; throws with a message naming the bad entry. */
  static parse(specs: readonly string[]): SchemaRules {
    const rules: SchemaRule[] = [];
    for (const spec of specs) {
      // A type has no "=", a file name may: the first one separates them.
      const equals = spec.indexOf('=');
      const type = equals === -1 ? '' : normaliseModel(spec.slice(0, equals));
      const file = equals === -1 ? '' : spec.slice(equals + 1).trim();
      if (!type || !file) throw new Error(`"${spec}" is not TYPE=FILE; write e.g. 'invoice=schemas/invoice.json'`);
      const earlier = rules.find((rule) => rule.type === type);
      if (earlier && earlier.file !== file) throw new Error(`two schemas for ${type} ("${earlier.file}" and "${file}"); give one per document type`);
      if (!earlier) rules.push({ type, file });
    }
    return new SchemaRules(rules);
  }

  /** Parse the setting's form: pairs separated by `;`. */
  static parseList(text: string): SchemaRules {
    return SchemaRules.parse(ruleList(text));
  }

  /** True when no `TYPE=FILE` rule was given. */
  get isEmpty(): boolean {
    return this.rules.length === 0;
  }

  /** The setting's form with every file made absolute against `cwd`, so a stored setting means the same from any folder. */
  toList(cwd: string): string {
    return this.rules.map((rule) => `${rule.type}=${isAbsolute(rule.file) ? rule.file : resolve(cwd, rule.file)}`).join(';');
  }
}
