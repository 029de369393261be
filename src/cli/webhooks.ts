import type { Command } from 'commander';
import { parseCount, parseSequence } from './arguments.js';
import { log, out, withDatabase } from './common.js';

/** `store-ops webhooks list | replay | resume` (PRODUCT §9, docs/events.md). */
export function addWebhookCommands(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description('webhook subscriptions: health, replay, resume (PRODUCT §9, docs/events.md)');
  webhooks
    .command('list')
    .description('list subscriptions with their delivery health (never their secrets)')
    .option('--json', "print JSON (the API's Subscription objects)")
    .action(async (options: { json?: boolean }) => {
      const { listSubscriptions } = await import('../modules/webhooks/service.js');
      const { webhooks: list } = await withDatabase(listSubscriptions);
      if (options.json) {
        out(JSON.stringify(list, null, 2));
        return;
      }
      for (const w of list) {
        const health = w.failing_since === null ? 'ok' : `failing since ${w.failing_since}: ${w.last_error}`;
        out(`${w.id}\t${w.status}\t${w.url}\tafter ${w.after_sequence}\t${w.pending_events} pending\t${health}`);
      }
    });
  webhooks
    .command('replay')
    .description(
      'deliver again from a sequence: the next batch starts with the first matching event whose sequence is <sequence> or more (a paused subscription still needs resume)',
    )
    .argument('<id>', 'subscription id', parseCount(1, 2_147_483_647))
    .requiredOption('--from <sequence>', 'the first sequence to deliver (1 or more)', parseSequence)
    .action(async (id: number, options: { from: number }) => {
      const { replaySubscription } = await import('../modules/webhooks/service.js');
      const replayed = await withDatabase((handle) => replaySubscription(handle, id, options.from));
      out(`webhook ${id}: delivery goes on from sequence ${options.from} (${replayed.pending_events} events pending)`);
      if (replayed.status === 'paused') log(`webhook ${id} is paused: store-ops webhooks resume ${id} to deliver`);
    });
  webhooks
    .command('resume')
    .description(
      'resume a paused subscription (or retry a failing one now): the batch it was sending goes out again at once',
    )
    .argument('<id>', 'subscription id', parseCount(1, 2_147_483_647))
    .action(async (id: number) => {
      const { resumeSubscription } = await import('../modules/webhooks/service.js');
      const resumed = await withDatabase((handle) => resumeSubscription(handle, id));
      out(
        `webhook ${id}: ${resumed.status}, next attempt at ${resumed.next_attempt_at} (${resumed.pending_events} events pending)`,
      );
    });
}
