#!/usr/bin/env node
import { runEmulatorCli } from '../dist/emulator/cli.js';

await runEmulatorCli(process.argv);
