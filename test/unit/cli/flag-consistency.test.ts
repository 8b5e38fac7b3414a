import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { optionKind, takesValue } from '../../../src/cli/completion/complete-words.js';
import { processIO } from '../../../src/cli/io.js';
import { cliProgram } from '../../../src/cli/main.js';
import { systemClock } from '../../../src/util/clock.js';

interface Place {
  command: string;
  option: Option;
}

/** Every option of every command, hidden commands included, with the command's path. */
function everyOption(): Place[] {
  const places: Place[] = [];
  const walk = (command: Command, path: string): void => {
    for (const option of command.options) places.push({ command: path, option });
    for (const sub of command.commands) walk(sub, `${path} ${sub.name()}`);
  };
  walk(cliProgram({ io: processIO(), clock: systemClock, args: [] }), 'docextract');
  return places;
}

describe('the flags of every command (issue 55)', () => {
  const places = everyOption();

  it('give a long flag the same short form wherever it appears, and a short form one meaning', () => {
    const shortsOf = new Map<string, Set<string>>();
    const longsOf = new Map<string, Set<string>>();
    for (const { option } of places) {
      if (!option.long) continue;
      const shorts = shortsOf.get(option.long) ?? new Set<string>();
      shorts.add(option.short ?? '(none)');
      shortsOf.set(option.long, shorts);
      if (option.short) longsOf.set(option.short, (longsOf.get(option.short) ?? new Set<string>()).add(option.long));
    }
    const inconsistent = [...shortsOf].filter(([, shorts]) => shorts.size > 1).map(([long, shorts]) => `${long}: ${[...shorts].join(', ')}`);
    expect(inconsistent).toEqual([]);
    const ambiguous = [...longsOf].filter(([, longs]) => longs.size > 1).map(([short, longs]) => `${short}: ${[...longs].join(', ')}`);
    expect(ambiguous).toEqual([]);
  });

  it('complete every value they know: a folder as folders, a file as files, choices as the choices', () => {
    const wrong = places
      .filter(({ option }) => takesValue(option))
      .flatMap(({ command, option }) => {
        const kind = optionKind(option);
        const placeholder = /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1] ?? '';
        const expected = option.argChoices
          ? JSON.stringify({ choices: option.argChoices })
          : /dir$|folder/.test(placeholder)
            ? '"dirs"'
            : /^file$/.test(placeholder)
              ? '"files"'
              : undefined;
        return expected !== undefined && JSON.stringify(kind) !== expected ? [`${command} ${option.flags}: ${JSON.stringify(kind)}`] : [];
      });
    expect(wrong).toEqual([]);
    const out = places.filter(({ option }) => option.long === '--out');
    expect(out.map(({ command }) => command)).toEqual(
      expect.arrayContaining(['docextract extract', 'docextract watch', 'docextract collect', 'docextract export']),
    );
  });

  it('offer no setting name as the value of --api-key: it is a secret', () => {
    const apiKey = places.find(({ option }) => option.long === '--api-key');
    expect(apiKey && optionKind(apiKey.option)).toBe('none');
  });
});
