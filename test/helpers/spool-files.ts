import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The objects' bytes a state folder's spool holds (`objects/<store>/objects/<bucket>/<key>`), as `<bucket>/<key>`: not their records, nor private copies. */
export function spooledObjects(stateDir: string): string[] {
  const spool = join(stateDir, 'objects');
  if (!existsSync(spool)) return [];
  const found: string[] = [];
  for (const store of readdirSync(spool).filter((name) => /^[0-9a-f]{16}$/.test(name))) {
    const objects = join(spool, store, 'objects');
    if (!existsSync(objects)) continue;
    for (const entry of readdirSync(objects, { recursive: true, withFileTypes: true }))
      if (!entry.isDirectory()) found.push(relative(objects, join(entry.parentPath, entry.name)));
  }
  return found.sort();
}
