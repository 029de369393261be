#!/usr/bin/env node
// `npx store-ops …`: the CLI is TypeScript run through tsx, like `npm start`, so there
// is no build step to remember.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
