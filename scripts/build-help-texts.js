// Part of `npm run build` (after tsc): renders every help text with the built CLI into
// dist/cli/help-texts.json, from which bin/help-answers.cjs answers `docextract --help` and the
// other help requests without loading the CLI (issue 30: start-up is part of the product).
// Written after dist/cli/main.js, so that a later tsc alone makes it older, and bin/ then stops
// trusting it until the next build.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/cli/', import.meta.url);
const { renderHelpTexts } = await import(new URL('help-texts.js', dist).href);
const helpTexts = await renderHelpTexts();
writeFileSync(fileURLToPath(new URL('help-texts.json', dist)), `${JSON.stringify(helpTexts)}\n`);
