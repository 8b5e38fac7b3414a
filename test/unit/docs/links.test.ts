/**
 * Every relative link in the README, CONTRIBUTING.md and docs/ points at a file that exists, and its
 * #anchor at a heading of that file, as GitHub names them (issue 55: a manual split into pages
 * must not send a reader to a section that moved). Links inside code blocks and code spans are text.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
/** docs/api/ is TypeDoc's output (not committed, not ours). */
const pages = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md') && !name.startsWith('api'))
    .map((name) => join('docs', name)),
];

/** The page's text outside fenced code blocks, code spans and HTML comments (none of which a reader can follow). */
function prose(markdown: string): string {
  return markdown
    .replace(/^```[\s\S]*?^```/gm, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const text = (heading ?? '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

describe('links in the README and docs/', () => {
  it('finds the pages', () => {
    expect(pages).toEqual(expect.arrayContaining(['docs/reference.md', 'docs/guide/watch.md', 'docs/how-it-works.md']));
  });

  it.each(pages)('%s: every relative link resolves, anchor included', (page) => {
    const markdown = readFileSync(join(root, page), 'utf8');
    const broken: string[] = [];
    for (const [, target] of prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (target === undefined || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? join(root, page) : resolve(dirname(join(root, page)), decodeURIComponent(path));
      if (!existsSync(file)) {
        broken.push(`${target}: no file ${relative(root, file)}`);
        continue;
      }
      if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor)) {
        broken.push(`${target}: no heading with the anchor #${anchor} in ${relative(root, file)}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
