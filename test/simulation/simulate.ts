/**
 * `npm run simulate -- --runs N`: the long search of the whole-store simulation (issue 26).
 * The same sequences, model and checks as `npm test` runs briefly, for as many runs as asked,
 * on SQLite (default) or PostgreSQL (`--database postgres`, from TEST_DATABASE_URL). A failure
 * is shrunk to its shortest sequence and printed with its trace and the seed and path that
 * replay it (`--seed S --path P`). Exit 1 on a failure.
 */
import { Command, InvalidArgumentError } from 'commander';
import fc from 'fast-check';
import { buildTestApp } from '../helpers/build.js';
import { testDialects, type TestDialect } from '../helpers/dialects.js';
import { sequenceArb } from './actions.js';
import { runSequence, type OutcomeCounts } from './runner.js';

const positive = (value: string) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};

const program = new Command('simulate')
  .description('whole-store simulation: random sequences of every operation against the reference model')
  .option('--runs <n>', 'sequences to run', positive, 100)
  .option('--steps <n>', 'most steps in a sequence', positive, 60)
  .option('--database <kind>', 'sqlite or postgres (postgres needs TEST_DATABASE_URL)', 'sqlite')
  .option('--seed <n>', 'replay: the seed a failure printed')
  .option('--path <p>', 'replay: the path a failure printed')
  .option('--no-shrink', 'report the first failing sequence as found')
  .parse();

const options = program.opts<{
  runs: number;
  steps: number;
  database: string;
  seed?: string;
  path?: string;
  shrink: boolean;
}>();
const dialect: TestDialect | undefined = testDialects().find((d) => d.name === options.database);
if (!dialect) {
  console.error(
    options.database === 'postgres'
      ? 'set TEST_DATABASE_URL=postgres://… to simulate on PostgreSQL'
      : `unknown database '${options.database}'`,
  );
  process.exit(2);
}

let runs = 0;
const outcomes: OutcomeCounts = new Map();
let steps = 0;
const started = Date.now();
const result = await fc.check(
  fc.asyncProperty(sequenceArb(Math.min(20, options.steps), options.steps), async (actions) => {
    const t = await buildTestApp(dialect);
    try {
      runs++;
      steps += actions.length;
      await runSequence(t.app, actions, `r${runs}`, outcomes);
      if (runs % 50 === 0)
        console.error(`… ${runs} sequences, ${steps} steps, ${Math.round((Date.now() - started) / 1000)} s`);
    } finally {
      await t.close();
    }
  }),
  {
    numRuns: options.runs,
    endOnFailure: !options.shrink,
    ...(options.seed !== undefined ? { seed: Number(options.seed), path: options.path } : {}),
  },
);
await dialect.cleanup();

const seconds = Math.round((Date.now() - started) / 1000);
// What the search exercised: answers per operation and status.
const byKind = new Map<string, string[]>();
for (const [outcome, count] of [...outcomes].sort()) {
  const [kind, status] = outcome.split(' ');
  byKind.set(kind!, [...(byKind.get(kind!) ?? []), `${status}×${count}`]);
}
for (const [kind, counts] of byKind) console.log(`  ${kind.padEnd(15)} ${counts.join(' ')}`);
if (!result.failed) {
  console.log(
    `simulate: ${result.numRuns} sequences on ${dialect.name} (${steps} steps, ${seconds} s): no difference from the model`,
  );
  process.exit(0);
}
console.log(
  `simulate: a difference from the model on ${dialect.name} after ${result.numRuns} sequences (${seconds} s)`,
);
console.log(
  `replay: npm run simulate -- --database ${dialect.name} --seed ${result.seed} --path ${result.counterexamplePath ?? ''} --runs 1`,
);
console.log(`shortest sequence: ${JSON.stringify(result.counterexample?.[0])}`);
console.log(String(result.errorInstance));
process.exit(1);
