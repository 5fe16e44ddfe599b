#!/usr/bin/env node
// The kafkasim command. Node 20 cannot run TypeScript by itself, so register tsx's loader and
// start the CLI from source: no build step to remember after `npm ci`.
import { register } from 'tsx/esm/api';

register();
await import('../sim/cli/main.ts');
