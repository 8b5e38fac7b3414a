// docs/reference.md from the reference's facts (index.js). Text from the code is escaped for Markdown
// outside its `code spans`, so a rule such as ids/**=id_card stays text and never turns bold.

/** Markdown's specials outside code spans escaped; inside them only `|`, which a table reads first. */
export function markdownText(text, { inTable = false } = {}) {
  return text
    .split(/(`[^`]*`)/)
    .map((piece, index) => {
      if (index % 2 === 1) return inTable ? piece.replaceAll('|', '\\|') : piece;
      return piece.replace(/[\\*<>[\]|]/g, (special) => {
        if (special === '<') return '&lt;';
        if (special === '>') return '&gt;';
        return `\\${special}`;
      });
    })
    .join('')
    .replace(/\s*\n\s*/g, ' ');
}

/** A term of the help (`-o, --out <dir>`) as a code span. */
const code = (text) => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``);
const cell = (text) => markdownText(text, { inTable: true });

function itemList(items) {
  return items.map((item) => `- ${code(item.term)}: ${markdownText(item.description)}`);
}

function commandSection(command) {
  const lines = [`### ${command.path.join(' ') === '' ? 'docextract' : `docextract ${command.path.join(' ')}`}`, '', '```text', command.usage, '```', ''];
  if (command.description) lines.push(markdownText(command.description), '');
  if (command.arguments.length > 0) lines.push('Arguments:', '', ...itemList(command.arguments), '');
  if (command.commands.length > 0) lines.push(`Commands: ${command.commands.map((name) => code(`${command.path.join(' ')} ${name}`)).join(', ')}.`, '');
  if (command.options.length > 0) lines.push('Options:', '', ...itemList(command.options), '');
  return lines;
}

function commandsPart({ cli }) {
  return [
    '## Commands',
    '',
    '```text',
    cli.usage,
    '```',
    '',
    markdownText(cli.description),
    '',
    'Every command takes the global options too; `docextract <command> --help` prints the same text as here.',
    '',
    '### Global options',
    '',
    ...itemList(cli.globalOptions),
    '',
    ...cli.commands.flatMap(commandSection),
  ];
}

function settingsPart({ settings, cli }) {
  const options = [...cli.globalOptions, ...cli.commands.flatMap((command) => command.options)];
  /** The flag that sets it (a switch's `--no-` form too), as the help shows it; none for a rule list only stored (`models`) or given by another flag (`schemas`: `--schema`). */
  const flagOf = (key) => options.find((option) => option.term.split(/[ ,]+/).some((word) => word === `--${key}` || word === `--no-${key}`))?.term;
  const rows = settings.map((setting) => {
    const flag = flagOf(setting.key);
    const env = setting.env ? code(setting.env) : setting.programOnly ? `a program only: \`settings.${setting.runField}\`` : 'flag only';
    const fallback = setting.default === undefined ? '' : code(setting.default);
    return `| ${code(setting.key)} | ${flag ? code(flag) : ''} | ${env} | ${fallback} | ${cell(setting.help)} |`;
  });
  return [
    '## Settings',
    '',
    'A setting with an environment variable is stored too (`docextract config set <key> <value>`, per profile). Precedence, highest first: the flag, the environment, the selected profile, the default profile, the default. The [guide](guide/settings.md) says more of each.',
    '',
    '| setting | flag | environment | default | what it does |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ];
}

function exitCodesPart({ exitCodes, errorTable }) {
  const byExit = new Map(exitCodes.map((row) => [row.exit, row]));
  return [
    '## Exit codes and error codes',
    '',
    '| exit code | meaning |',
    '|---|---|',
    ...exitCodes.map((row) => `| ${row.exit} | ${cell(row.doc)} |`),
    '',
    'Each error carries a stable `code` (in `--json`: `error.code`). A code not listed here (a new one of the service) exits 1.',
    '',
    '| code | exit code | what to do |',
    '|---|---|---|',
    ...Object.entries(errorTable).map(
      ([name, outcome]) => `| ${code(name)} | ${outcome.exit} (${byExit.get(outcome.exit)?.name ?? '?'}) | ${cell(outcome.hint ?? '')} |`,
    ),
    '',
  ];
}

function resultFilePart({ resultFields }) {
  return [
    '## The result file',
    '',
    'One JSON file per source (`<out>/<path below the input>.json`), written whole (a temporary file renamed). Its fields, a dotted path for a nested one (`[]`: each element of a list):',
    '',
    '| field | type | what it holds |',
    '|---|---|---|',
    ...resultFields.map((field) => `| ${code(field.path)} | ${cell(field.type)}${field.optional ? ' (optional)' : ''} | ${cell(field.doc)} |`),
    '',
  ];
}

/** One line per property of an object schema: name, type, whether required, description. */
function schemaRows(schema) {
  const required = new Set(schema.required ?? []);
  const typeOf = (property) =>
    property.type === 'array' ? `${typeOf(property.items ?? {})}[]` : (property.type ?? (property.anyOf ?? []).map(typeOf).join(' or ')) || 'any';
  return Object.entries(schema.properties ?? {}).map(
    ([name, property]) => `| ${code(name)} | ${cell(typeOf(property))} | ${required.has(name) ? 'yes' : ''} | ${cell(property.description ?? '')} |`,
  );
}

function mcpPart({ mcp }) {
  const tool = (entry) => {
    const annotations = Object.entries(entry.annotations ?? {})
      .map(([name, value]) => code(`${name}: ${String(value)}`))
      .join(', ');
    const input = schemaRows(entry.inputSchema);
    const output = Object.keys(entry.outputSchema?.properties ?? {}).map(code);
    return [
      `### ${code(entry.name)}: ${markdownText(entry.title ?? '')}`,
      '',
      markdownText(entry.description ?? ''),
      '',
      ...(annotations ? [`Annotations: ${annotations}.`, ''] : []),
      ...(input.length > 0 ? ['| input | type | required | what it is |', '|---|---|---|---|', ...input, ''] : ['It takes no input.', '']),
      ...(output.length > 0 ? [`Its answer (structured content) holds ${output.join(', ')}.`, ''] : []),
    ];
  };
  return [
    '## MCP tools',
    '',
    '`docextract mcp` serves these tools on stdio ([the guide](guide/mcp.md)). What the server tells an agent at `initialize`:',
    '',
    '```text',
    mcp.instructions,
    '```',
    '',
    ...mcp.tools.flatMap(tool),
  ];
}

export function renderMarkdown(facts) {
  const lines = [
    '# Reference',
    '',
    '<!-- Generated by `npm run docs:reference` (scripts/build-reference.js) from the code: edit the code, then run it. -->',
    '',
    `docextract ${facts.version}: every command and flag, every setting, the exit and error codes, the result file's fields and the MCP tools, generated from the code (the help texts, \`SETTINGS\`, \`ERROR_TABLE\`, \`ResultDocument\`, the MCP server). The same help texts make the manual page (\`man docextract\`, or \`man ./man/docextract.1\` in a clone). The [guide](guide/extracting.md) explains them task by task.`,
    '',
    '- [Commands](#commands)',
    ...facts.cli.commands.map((command) => `  - [${command.path.join(' ')}](#docextract-${command.path.join('-')})`),
    '- [Settings](#settings)',
    '- [Exit codes and error codes](#exit-codes-and-error-codes)',
    '- [The result file](#the-result-file)',
    '- [MCP tools](#mcp-tools)',
    '',
    ...commandsPart(facts),
    ...settingsPart(facts),
    ...exitCodesPart(facts),
    ...resultFilePart(facts),
    ...mcpPart(facts),
  ];
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}
