#!/usr/bin/env node
// `store-ops …` / `npx store-ops …`: runs src/cli.ts from its bundle (bin/cli-bundle.js),
// or through tsx, like `npm start`, when no bundle can be built here.
import { pathToFileURL } from 'node:url';
import { cliBundleEntry } from './cli-bundle.js';

const entry = await cliBundleEntry();
if (entry !== undefined) {
  // Stack traces name src/ files and lines, as they do under tsx.
  process.setSourceMapsEnabled(true);
  await import(pathToFileURL(entry).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
