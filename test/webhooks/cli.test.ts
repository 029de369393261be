import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../bench/lib/processes.js';
import { buildTestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { restartableDatabaseUrl } from '../helpers/factories.js';
import { assertDeliveredInOrder, waitUntil } from './receiver.js';
import { deliveredAll, QUICK_RETRIES, subscribe, subscriptionState, writeProducts } from './support.js';

/**
 * `store-ops webhooks list|replay|resume` (PRODUCT §9) as an operator runs them: a CLI process
 * on the database a running service uses (here an in-process app, whose dispatcher delivers
 * to a loopback receiver), which takes the change at its next poll.
 */

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function storeOps(args: string[], databaseUrl: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/store-ops.js', ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

for (const dialect of DIALECTS) {
  describe(`store-ops webhooks (${dialect.name})`, { timeout: 120_000 }, () => {
    afterAll(() => dialect.cleanup());

    it('lists subscriptions, resumes a paused one and replays from a sequence, while the service delivers', async () => {
      const databaseUrl = await restartableDatabaseUrl(dialect);
      // Failures for 400 ms pause a subscription here (24 h in production).
      const t = await buildTestApp(dialect, {
        databaseUrl,
        webhooksAllowPrivate: true,
        webhookTimingForTests: { ...QUICK_RETRIES, retryWindowMs: 400 },
      });
      let status = 500;
      const hook = await subscribe(t, { types: ['product.upserted'] }, () => status);
      try {
        await writeProducts(t, 'CP', 20);
        await waitUntil(
          async () => (await subscriptionState(t, hook.id)).status === 'paused',
          'the subscription paused',
          10_000,
        );

        const [listed, json] = await Promise.all([
          storeOps(['webhooks', 'list'], databaseUrl),
          storeOps(['webhooks', 'list', '--json'], databaseUrl),
        ]);
        expect(listed.code, listed.stderr).toBe(0);
        expect(listed.stdout).toMatch(
          new RegExp(
            `^${hook.id}\\tpaused\\t${hook.receiver.url}\\tafter ${hook.start}\\t20 pending\\tfailing since \\S+: HTTP 500`,
            'm',
          ),
        );
        expect(listed.stdout).not.toContain(hook.secret.slice(6));
        expect(JSON.parse(json.stdout)).toEqual([
          expect.objectContaining({ id: hook.id, status: 'paused', pending_events: 20, types: ['product.upserted'] }),
        ]);

        status = 200;
        const resumed = await storeOps(['webhooks', 'resume', String(hook.id)], databaseUrl);
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(resumed.stdout).toMatch(new RegExp(`^webhook ${hook.id}: active, next attempt at `));
        const feed = await deliveredAll(t, hook, 20);
        assertDeliveredInOrder(
          hook.receiver.deliveries,
          feed.map((e) => e.sequence),
        );
        expect(await subscriptionState(t, hook.id)).toMatchObject({
          status: 'active',
          failing_since: null,
          delivered_events: 20,
        });

        // Replay from the 6th event: the 6th to the 20th arrive again, in order.
        const before = hook.receiver.deliveries.length;
        const from = feed[5]!.sequence;
        const replayed = await storeOps(['webhooks', 'replay', String(hook.id), '--from', String(from)], databaseUrl);
        expect(replayed.code, replayed.stderr).toBe(0);
        expect(replayed.stdout.trim()).toBe(
          `webhook ${hook.id}: delivery goes on from sequence ${from} (15 events pending)`,
        );
        await deliveredAll(t, hook, 20);
        assertDeliveredInOrder(
          hook.receiver.deliveries.slice(before),
          feed.slice(5).map((e) => e.sequence),
        );

        // What it refuses: an unknown subscription, a sequence the feed has not reached, bad arguments.
        const last = feed[feed.length - 1]!.sequence;
        const refusals: Array<[string[], number, RegExp]> = [
          [['webhooks', 'resume', '999'], 1, /No webhook subscription 999/],
          [['webhooks', 'replay', '999', '--from', '1'], 1, /No webhook subscription 999/],
          [['webhooks', 'replay', String(hook.id), '--from', String(last + 1000)], 1, /may be at most/],
          [['webhooks', 'replay', String(hook.id), '--from', '0'], 2, /--from/],
          [['webhooks', 'replay', String(hook.id)], 2, /--from/],
          [['webhooks', 'resume', 'abc'], 2, /id/],
        ];
        const results = await Promise.all(refusals.map(([args]) => storeOps(args, databaseUrl)));
        refusals.forEach(([args, code, message], index) => {
          expect(results[index]!.code, args.join(' ')).toBe(code);
          expect(results[index]!.stderr, args.join(' ')).toMatch(message);
        });
      } finally {
        await t.close();
        await hook.receiver.close();
      }
    });
  });
}
