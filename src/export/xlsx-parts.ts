/**
 * The fixed parts of an xlsx (Office Open XML, ECMA-376): what the package
 * holds, where the workbook is, its sheets by name, and the three cell
 * styles the sheets use. workbook-writer.ts writes the sheets themselves.
 */
const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELATIONSHIPS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** The cell styles of styles.xml, by their index (a cell's `s`). */
export const STYLE = { plain: 0, header: 1, date: 2 } as const;

/** The part of sheet `index` (from 1) in the package. */
export function sheetPart(index: number): string {
  return `xl/worksheets/sheet${index}.xml`;
}

/** Every fixed part, by its name in the package, for a workbook of `sheets` (their names, in order). */
export function fixedParts(sheets: readonly string[]): [string, string][] {
  const numbered = sheets.map((name, at) => ({ name, n: at + 1 }));
  return [
    [
      '[Content_Types].xml',
      `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
        numbered
          .map(({ n }) => `<Override PartName="/${sheetPart(n)}" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`)
          .join('') +
        '</Types>',
    ],
    [
      '_rels/.rels',
      `${XML}<Relationships xmlns="${RELATIONSHIPS}"><Relationship Id="rId1" Type="${OFFICE}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/workbook.xml',
      `${XML}<workbook xmlns="${MAIN}" xmlns:r="${OFFICE}"><sheets>` +
        numbered.map(({ name, n }) => `<sheet name="${xmlText(name)}" sheetId="${n}" r:id="rId${n}"/>`).join('') +
        '</sheets></workbook>',
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `${XML}<Relationships xmlns="${RELATIONSHIPS}">` +
        numbered.map(({ n }) => `<Relationship Id="rId${n}" Type="${OFFICE}/worksheet" Target="worksheets/sheet${n}.xml"/>`).join('') +
        `<Relationship Id="rId${sheets.length + 1}" Type="${OFFICE}/styles" Target="styles.xml"/></Relationships>`,
    ],
    ['xl/styles.xml', STYLES],
  ];
}

/** Plain, bold (the header row), and a calendar date shown as yyyy-mm-dd: STYLE's order. */
const STYLES =
  `${XML}<styleSheet xmlns="${MAIN}">` +
  '<numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd"/></numFmts>' +
  '<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts>' +
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
  '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  '<cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
  '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>' +
  '<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs>' +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
  '</styleSheet>';

/** Control characters but tab and line ends (XML 1.0 cannot hold most of them, even escaped), and U+FFFE/U+FFFF: left out. */
const NOT_XML = /(?![\t\n\r])[\p{Cc}\uFFFE\uFFFF]/gu;
/** Text Excel would read as its own escape of a character (`_x000D_`): its `_` is escaped, so the text stays as it is. */
const LOOKS_ESCAPED = /_(?=x[0-9A-Fa-f]{4}_)/g;

/** `text` as XML character data or an attribute value. */
function xmlText(text: string): string {
  return text.replace(NOT_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** `text` as a cell's string: also keeps Excel from decoding `_xHHHH_` in it. */
export function cellText(text: string): string {
  return xmlText(text).replace(LOOKS_ESCAPED, '_x005F_');
}
