import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript beside the bin, without type declarations
import { cliBundleEntry } from '../bin/cli-bundle.js';

const bundleEntry = cliBundleEntry as (root: string) => Promise<string | undefined>;

/** A project of two TypeScript files, laid out like this one (src/cli.ts importing a module). */
function project(message: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'store-ops-cli-bundle-'));
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ type: 'module' }));
  fs.writeFileSync(
    path.join(root, 'src', 'cli.ts'),
    "import { message } from './message.js';\nconst shout = (text: string): string => text;\nprocess.stdout.write(shout(message));\n",
  );
  writeMessage(root, message);
  return root;
}

function writeMessage(root: string, message: string): void {
  fs.writeFileSync(
    path.join(root, 'src', 'message.ts'),
    `export const message: string = ${JSON.stringify(message)};\n`,
  );
}

const run = (entry: string) => spawnSync(process.execPath, [entry], { encoding: 'utf8' }).stdout;

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

describe('the CLI bundle (bin/cli-bundle.js)', () => {
  it('builds the sources once and serves the same bundle while they are unchanged', async () => {
    const root = project('first');
    roots.push(root);
    const entry = await bundleEntry(root);
    expect(entry).toBeDefined();
    expect(run(entry!)).toBe('first');
    expect(await bundleEntry(root)).toBe(entry);
  });

  it('rebuilds when a source file changes, and concurrent first runs agree on one bundle', async () => {
    const root = project('before');
    roots.push(root);
    const before = await bundleEntry(root);
    writeMessage(root, 'after the edit');
    const entries = await Promise.all([bundleEntry(root), bundleEntry(root), bundleEntry(root)]);
    expect(new Set(entries).size).toBe(1);
    expect(entries[0]).not.toBe(before);
    expect(run(entries[0]!)).toBe('after the edit');
    // The earlier bundle is kept for a CLI that may still be loading it; no half-built directory is left.
    expect(fs.existsSync(before!)).toBe(true);
    expect(
      fs
        .readdirSync(path.join(root, 'node_modules', '.cache', 'store-ops-cli'))
        .filter((name) => name.startsWith('.building-')),
    ).toEqual([]);
  });

  it('answers undefined when the sources cannot be bundled, so the CLI runs them through tsx instead', async () => {
    const root = project('broken');
    roots.push(root);
    fs.writeFileSync(path.join(root, 'src', 'message.ts'), 'export const message = ;\n');
    expect(await bundleEntry(root)).toBeUndefined();
    expect(fs.readdirSync(path.join(root, 'node_modules', '.cache', 'store-ops-cli'))).toEqual([]);
  });
});
