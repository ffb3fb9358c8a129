#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader, so there is no build step.
import { register } from 'tsx/esm/api';
import { hideBin } from 'yargs/helpers';

register();
const { main } = await import('../emu/cli.ts');
process.exitCode = await main(hideBin(process.argv));
