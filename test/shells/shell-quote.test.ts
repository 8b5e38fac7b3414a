import { describe, expect, it } from 'vitest';
import { suggestedCommand } from '../../src/util/shell-quote.js';
import { HOSTILE_WORDS, wordsParsedBy } from '../helpers/shell-words.js';

// zsh is a Debian package: .ci/run installs it, then runs npm run test:shells (bash and dash: test/unit/util/shell-quote.test.ts).
describe('shellQuote in zsh', () => {
  it('zsh reads each hostile word back as itself, one word each', () => {
    expect(wordsParsedBy('zsh', suggestedCommand(HOSTILE_WORDS))).toEqual(HOSTILE_WORDS);
  });
});
