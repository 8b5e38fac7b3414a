// What only the source says: the doc comments of the exit codes (src/cli/exit-codes.ts) and of the
// result file's fields (ResultDocument in src/batch/result-file.ts). The built JavaScript keeps the
// values, not the comments, so these are read from the TypeScript, parsed (not type-checked).
import { readFileSync } from 'node:fs';
import ts from 'typescript';

const root = new URL('../../', import.meta.url);

function parse(path) {
  return ts.createSourceFile(path, readFileSync(new URL(path, root), 'utf8'), ts.ScriptTarget.Latest, true);
}

/** A node's doc comment as one line of text ('' without one). */
function docOf(node) {
  const text = ts
    .getJSDocCommentsAndTags(node)
    .filter(ts.isJSDoc)
    .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '')
    .join(' ');
  return text.replace(/\s+/g, ' ').trim();
}

/** `ExitCode`'s members: name, number and doc comment, in the order written. */
export function exitCodeDocs() {
  const file = parse('src/cli/exit-codes.ts');
  const rows = [];
  const visit = (node) => {
    if (ts.isPropertyAssignment(node) && ts.isNumericLiteral(node.initializer)) {
      rows.push({ name: node.name.getText(file), exit: Number(node.initializer.text), doc: docOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return rows;
}

/**
 * Every field of a result file: its dotted path (`source.sha256`, `checks.problems[].path`), its type as
 * written and its doc comment. Interfaces it names (Question, ResultChecks, PartEntry, ...) are opened from the
 * files given, in place.
 */
export function resultFileFields() {
  const files = ['src/batch/result-file.ts', 'src/batch/question.ts', 'src/engine/parts.ts'].map(parse);
  const interfaces = new Map();
  for (const file of files) {
    for (const statement of file.statements) {
      if (ts.isInterfaceDeclaration(statement)) interfaces.set(statement.name.text, { node: statement, file });
      if (ts.isTypeAliasDeclaration(statement)) interfaces.set(statement.name.text, { node: statement, file });
    }
  }
  const rows = [];
  const members = (prefix, list, file) => {
    for (const member of list) {
      if (!ts.isPropertySignature(member) || !member.type) continue;
      const path = `${prefix}${member.name.getText(file)}`;
      rows.push({ path, type: typeText(member.type, file), optional: member.questionToken !== undefined, doc: docOf(member) });
      expand(path, member.type, file);
    }
  };
  const expand = (path, type, file) => {
    if (ts.isTypeLiteralNode(type)) return members(`${path}.`, type.members, file);
    if (ts.isUnionTypeNode(type)) return type.types.forEach((part) => expand(path, part, file));
    if (ts.isArrayTypeNode(type)) return expand(`${path}[]`, type.elementType, file);
    if (ts.isTypeReferenceNode(type)) {
      const named = interfaces.get(type.typeName.getText(file));
      if (named && ts.isInterfaceDeclaration(named.node)) members(`${path}.`, named.node.members, named.file);
    }
  };
  /** A field's type as a reader wants it: inline objects and named interfaces as `object`, aliases spelled out. */
  const typeText = (type, file) => {
    if (ts.isTypeLiteralNode(type)) return 'object';
    if (ts.isUnionTypeNode(type)) return type.types.map((part) => typeText(part, file)).join(' | ');
    if (ts.isArrayTypeNode(type)) return `${typeText(type.elementType, file)}[]`;
    if (ts.isTypeReferenceNode(type)) {
      const named = interfaces.get(type.typeName.getText(file));
      if (named && ts.isTypeAliasDeclaration(named.node)) return typeText(named.node.type, named.file);
      return named ? 'object' : type.getText(file);
    }
    return type.getText(file);
  };
  const top = interfaces.get('ResultDocument');
  members('', top.node.members, top.file);
  // A source extracted in parts lists them; its writer adds the field (engine/parts.ts), the type does not.
  const part = interfaces.get('PartEntry');
  rows.push({ path: 'parts', type: 'object[]', optional: true, doc: `Only in the result of a source extracted in parts, in page order. ${docOf(part.node)}` });
  members('parts[].', part.node.members, part.file);
  return rows;
}
