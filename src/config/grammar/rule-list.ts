/**
 * The list form of rule settings (models, pages, schemas): rules separated by
 * `;`, since globs and page selections may hold commas. One string or a list
 * of them (an MCP call may give either).
 */
export function ruleList(value: string | readonly string[]): string[] {
  const list = typeof value === 'string' ? value.split(';') : value;
  return list.map((rule) => rule.trim()).filter(Boolean);
}
