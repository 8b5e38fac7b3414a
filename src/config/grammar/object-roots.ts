/**
 * The `s3://` roots MCP's agent may extract objects from (`allow-s3`): one
 * address or several separated by `;`, as the rule settings are (or a list:
 * the flag's, one address each), each naming a bucket (`s3://bucket/prefix/`,
 * `s3://bucket`). Throws saying which is wrong.
 */
import { isObjectUri } from '../../util/object-uri.js';
import { ruleList } from './rule-list.js';

export function parseObjectRoots(value: string | readonly string[]): string[] {
  const roots = ruleList(value);
  for (const root of roots)
    if (!isObjectUri(root) || root.length <= 's3://'.length || root.startsWith('/', 's3://'.length))
      throw new Error(`${root}: give an s3://bucket/prefix/ address`);
  return roots;
}
