import { describe, expect, it } from 'vitest';
import { renderUntrusted } from '../../src/util/untrusted-text.js';
import { OSC_NAME, OSC_NAME_SHOWN, RAW_FOR_A_TERMINAL } from '../helpers/hostile-text.js';

describe('renderUntrusted', () => {
  it.each([
    ['a plain name, unchanged', 'invoice-2026.pdf', 'invoice-2026.pdf'],
    ["the review's payload: OSC 52, OSC 0, CR, CSI 2K", OSC_NAME, OSC_NAME_SHOWN],
    ['a newline that would print a fake line', 'a.pdf\ncomplete  b.pdf', 'a.pdf\\ncomplete  b.pdf'],
    ['tab and carriage return', 'a\tb\rc', 'a\\tb\\rc'],
    ['NUL, BEL, backspace', 'a\x00b\x07c\x08', 'a\\x00b\\x07c\\x08'],
    ['DEL', 'a\x7fb', 'a\\x7fb'],
    ['C1 controls (U+009B is a CSI by itself)', 'a\x80b\x9b2Kc\x9f', 'a\\x80b\\x9b2Kc\\x9f'],
    ['right-to-left override', 'invoice\u202efdp.exe', 'invoice\\u202efdp.exe'],
    [
      'every bidi embedding, override and isolate',
      '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069',
      '\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069',
    ],
    ['bidi marks', '\u200e\u200f\u061c', '\\u200e\\u200f\\u061c'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['invisible format characters: zero-width space, word joiner, BOM, soft hyphen', 'in\u200bv\u2060o\ufeffi\u00adce', 'in\\u200bv\\u2060o\\ufeffi\\xadce'],
    ['tag characters beyond U+FFFF (hidden text)', 'a\u{e0041}\u{e0042}', 'a\\u{e0041}\\u{e0042}'],
    ['a lone surrogate', 'a\ud800b', 'a\\ud800b'],
    ['the backslash stays as it is', 'C:\\scans\\new.pdf', 'C:\\scans\\new.pdf'],
    ['accents, CJK and emoji are text', 'Facture é 請求書 🧾.pdf', 'Facture é 請求書 🧾.pdf'],
    ['ZWJ and ZWNJ stay: emoji and scripts need them', '👩\u200d💻 می\u200cخواهم', '👩\u200d💻 می\u200cخواهم'],
    ['the empty string', '', ''],
  ])('%s', (_what, text, shown) => {
    expect(renderUntrusted(text)).toBe(shown);
  });

  it('leaves nothing a terminal acts on, whatever the input', () => {
    let every = '';
    for (let code = 0; code < 0x3000; code++) every += String.fromCharCode(code);
    const shown = renderUntrusted(every);
    expect(shown).not.toMatch(RAW_FOR_A_TERMINAL);
    expect(shown).not.toMatch(/[\n\u2028\u2029]/);
  });

  it('rendering twice is rendering once: a line of rendered values can be rendered whole again', () => {
    const once = renderUntrusted(`${OSC_NAME} \u202e \n C:\\x1b`);
    expect(renderUntrusted(once)).toBe(once);
  });
});
