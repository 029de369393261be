// The load generator (see fireLoad in load.ts): one long-lived child process running
// autocannon on request — the third process beside the service and its baseline, so the
// load never shares an event loop with what it measures, and each load pays neither a
// process start nor autocannon's own warm-up. A process, not a worker thread: inside a
// worker autocannon reports raw histograms for a parent to merge instead of its summary.
// Plain JavaScript, so it needs no TypeScript loader.
import autocannon from 'autocannon';

const reply = (message) => process.send(message);

process.on('message', async ({ id, options }) => {
  try {
    const result = await autocannon(options);
    reply({
      id,
      result: {
        requests: result.requests.total,
        duration: result.duration,
        errors: result.errors,
        timeouts: result.timeouts,
        non2xx: result.non2xx,
        // autocannon counts a 1xx/3xx as neither 2xx nor non2xx: the 2xx count is checked too.
        ok2xx: result['2xx'],
        latencyP50Ms: result.latency.p50,
        latencyP99Ms: result.latency.p99,
      },
    });
  } catch (error) {
    reply({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
