// Part of `npm run build` (after tsc): renders every help text with the built CLI into
// dist/cli/help-texts.json, from which bin/help-answers.cjs answers `docextract --help` and the
// other help requests without loading the CLI (issue 30: start-up is part of the product).
// The texts carry the key of the built CLI they were rendered from (its content, builtKey): after
// a tsc alone, the key no longer matches and bin/ runs the CLI until the next build.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/cli/', import.meta.url);
const { builtKey } = createRequire(import.meta.url)('../bin/help-answers.cjs');
const builtFrom = builtKey(fileURLToPath(new URL('../dist/', import.meta.url)));
const { renderHelpTexts } = await import(new URL('help-texts.js', dist).href);
const helpTexts = await renderHelpTexts();
writeFileSync(fileURLToPath(new URL('help-texts.json', dist)), `${JSON.stringify({ ...helpTexts, builtFrom })}\n`);
