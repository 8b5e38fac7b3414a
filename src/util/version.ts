import { readFileSync } from 'node:fs';

/** Read once from package.json, which sits two folders above both src/util and dist/util. */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export const USER_AGENT = `docextract/${VERSION}`;
