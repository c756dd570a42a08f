#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so there is no separate build step to forget.
import { register } from 'tsx/esm/api';

register();
await import('../daemon/src/cli.ts');
