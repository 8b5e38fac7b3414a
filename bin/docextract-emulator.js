#!/usr/bin/env node
import { requireBuilt } from './dist-check.js';

requireBuilt(new URL('../dist/emulator/cli.js', import.meta.url), 'docextract-emulator');
const { runEmulatorCli } = await import('../dist/emulator/cli.js');
await runEmulatorCli(process.argv);
