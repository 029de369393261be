// The load generator (see fireLoad in http.ts): one long-lived child process running
// autocannon on request, so each load pays neither a process start nor autocannon's own
// warm-up, and the server under test keeps the bench's main thread to itself. A process,
// not a worker thread: inside a worker autocannon reports raw histograms for a parent to
// merge instead of its summary. Plain JavaScript, so it needs no TypeScript loader.
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
        latencyP50Ms: result.latency.p50,
        latencyP99Ms: result.latency.p99,
      },
    });
  } catch (error) {
    reply({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
