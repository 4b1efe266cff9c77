#!/usr/bin/env node
// The `roost` command. Roost runs its TypeScript sources through tsx, so there is no build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/cli.ts');
process.exitCode = await main(process.argv.slice(2));
