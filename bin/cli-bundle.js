// The CLI runs from a bundle of src/ that esbuild builds on first use and again whenever a
// source changes, so `store-ops verify` starts in ~0.1 s instead of tsx compiling and
// resolving a few hundred modules one by one (~0.6 s; bench stock.verify.1m). There is still
// no build step to remember: the bundle is a cache, keyed by every input that shapes it.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Besides src/: what changes the bundle's dependencies or the way it is built. */
const OTHER_INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json'];
const BUILD_SCRIPT = fileURLToPath(import.meta.url);

/** Path, size and modification time of every input: any edit, addition or removal changes the key. */
function inputsKey(root) {
  const hash = createHash('sha256');
  const sourceDir = path.join(root, 'src');
  const sources = fs
    .readdirSync(sourceDir, { recursive: true })
    .map((name) => path.join(sourceDir, String(name)))
    .sort();
  for (const file of [...sources, ...OTHER_INPUTS.map((name) => path.join(root, name)), BUILD_SCRIPT]) {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (stat === undefined || stat.isDirectory()) continue;
    hash.update(`${path.relative(root, file)}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  return hash.digest('hex').slice(0, 24);
}

async function build(root, outdir) {
  const { build: esbuild } = await import('esbuild');
  await esbuild({
    entryPoints: [path.join(root, 'src', 'cli.ts')],
    outdir,
    bundle: true,
    // Commands import their modules when they run (src/cli.ts), so --help and usage errors
    // stay instant: splitting keeps those imports lazy chunks instead of inlining them.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Native addon, and pg's optional native binding: loaded from node_modules at run time.
    external: ['better-sqlite3', 'pg-native'],
    // Bundled CommonJS packages (pg) call require(); an ES module has none of its own.
    banner: {
      js: "import { createRequire as storeOpsCreateRequire } from 'node:module'; const require = storeOpsCreateRequire(import.meta.url);",
    },
    sourcemap: 'linked',
    logLevel: 'silent',
  });
}

/**
 * The bundle's entry for the current sources, built if missing. Concurrent first runs each
 * build into a directory of their own and rename it into place: one wins, none sees half a
 * bundle. Returns undefined when it cannot be built here (read-only install, esbuild
 * missing): the caller then runs the sources through tsx, as before.
 */
export async function cliBundleEntry(root = PACKAGE_ROOT) {
  const cacheDir = path.join(root, 'node_modules', '.cache', 'store-ops-cli');
  try {
    const key = inputsKey(root);
    const dir = path.join(cacheDir, key);
    const entry = path.join(dir, 'cli.js');
    if (fs.existsSync(entry)) {
      markUsed(dir);
      return entry;
    }
    fs.mkdirSync(cacheDir, { recursive: true });
    const temporary = path.join(cacheDir, `.building-${process.pid}-${randomBytes(4).toString('hex')}`);
    try {
      await build(root, temporary);
      fs.renameSync(temporary, dir);
    } catch (error) {
      fs.rmSync(temporary, { recursive: true, force: true });
      if (!fs.existsSync(entry)) throw error;
    }
    removeStaleBundles(cacheDir, key);
    return entry;
  } catch {
    return undefined;
  }
}

function markUsed(dir) {
  try {
    const now = new Date();
    fs.utimesSync(dir, now, now);
  } catch {
    // A read-only cache still serves its bundle; only the clean-up loses its hint.
  }
}

/** A bundle unused this long is not being loaded by any CLI still starting. */
const STALE_AFTER_MS = 60 * 60 * 1000;

/**
 * Bundles of earlier sources are not used again once their sources changed, but a CLI that
 * started from one may still be loading its lazy chunks (and another checkout sharing this
 * node_modules may be using its own): only old ones are removed, builds in progress never.
 */
function removeStaleBundles(cacheDir, currentKey) {
  const now = Date.now();
  for (const name of fs.readdirSync(cacheDir)) {
    if (name === currentKey || name.startsWith('.building-')) continue;
    const bundle = path.join(cacheDir, name);
    if (now - fs.statSync(bundle).mtimeMs > STALE_AFTER_MS) fs.rmSync(bundle, { recursive: true, force: true });
  }
}
