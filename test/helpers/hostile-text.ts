import { expect } from 'vitest';

/** Every byte a terminal acts on but the line break, and the characters that reorder text (the review's check). */
// eslint-disable-next-line no-control-regex -- matching control bytes is the point
export const RAW_FOR_A_TERMINAL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

/** The security review's name: sets the clipboard (OSC 52), retitles the window, erases its own line. */
export const OSC_NAME = 'invoice\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b]0;Invoices OK\x07\r\x1b[2K.pdf';
/** How it must show: the same characters, each control a visible escape. */
export const OSC_NAME_SHOWN = 'invoice\\x1b]52;c;ZWNobyBwd25lZA==\\x07\\x1b]0;Invoices OK\\x07\\r\\x1b[2K.pdf';

/** A name whose newline prints a convincing `complete` line of its own. */
export const FAKE_LINE_NAME = 'scan.pdf\ncomplete  payroll.pdf -> payroll.pdf.json (1 page)\nx.pdf';
export const FAKE_LINE_NAME_SHOWN = 'scan.pdf\\ncomplete  payroll.pdf -> payroll.pdf.json (1 page)\\nx.pdf';

/** A right-to-left override: `invoice\u202efdp.exe` shows as `invoiceexe.pdf`. */
export const RTL_NAME = 'invoice\u202efdp.exe.pdf';
export const RTL_NAME_SHOWN = 'invoice\\u202efdp.exe.pdf';

/** A service text carrying an escape sequence and a newline. */
export const HOSTILE_SERVICE_TEXT = 'bad\x1b]0;pwned\x07 thing\n\u202eretlif';
export const HOSTILE_SERVICE_TEXT_SHOWN = 'bad\\x1b]0;pwned\\x07 thing\\n\\u202eretlif';

/** No control byte or bidi override reaches the terminal; the line breaks that are there are ours. */
export function expectNothingRaw(output: string, what = 'output'): void {
  const raw = RAW_FOR_A_TERMINAL.exec(output);
  expect(
    raw === null ? 'none' : `${JSON.stringify(raw[0])} at ${raw.index}: ${JSON.stringify(output.slice(Math.max(0, raw.index - 40), raw.index + 40))}`,
    `raw control in ${what}`,
  ).toBe('none');
}
