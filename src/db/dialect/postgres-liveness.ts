import pg from 'pg';

export interface LivenessTimings {
  /** A statement outstanding this long makes the watch ask whether the server is still there. */
  stuckAfterMillis: number;
  /** How often the watch looks at the outstanding statements. */
  checkEveryMillis: number;
  /** How long the question may take: a fresh connection and `select 1`. */
  probeTimeoutMillis: number;
}

const TIMINGS: LivenessTimings = { stuckAfterMillis: 10_000, checkEveryMillis: 1000, probeTimeoutMillis: 5000 };

/**
 * A server that vanishes without a word — a host that went down, a network cut, a failover
 * that moved the address — closes nothing: statements already sent wait for an answer until
 * TCP gives up (about 15 minutes of retransmissions on Linux), and so do the next requests
 * handed an idle connection to it. A restart or a refused connection needs none of this (the
 * server or its host says so at once: pg reports it, the pool drops the connection).
 *
 * The watch: when a statement has been outstanding for 10 s, a fresh connection asks the
 * server `select 1`. An answer, even an error (too many connections, starting up), means the
 * server is there and the statement is merely slow (a lock wait, a big import): left alone.
 * No answer within 5 s (or no route, or a refused connection) means it is gone: every
 * connection of the pool is cut, so the statements waiting on them fail at once ("Connection
 * terminated unexpectedly" → 503 UNAVAILABLE, nothing committed) and the pool connects afresh
 * once the server answers again (issue 27, PRODUCT §2 "The database going away").
 */
export class LivenessWatch {
  /** Every connection of the pool, and when its oldest outstanding statement was sent. */
  private readonly clients = new Map<pg.PoolClient, { outstanding: number; since: number }>();
  private readonly timer: NodeJS.Timeout;
  private probing = false;
  private lastProbe = 0;

  /** `timings` other than the defaults are for tests of the watch itself. */
  constructor(
    pool: pg.Pool,
    /** Where the question goes: the server the pool's connections are on (with several hosts, the one chosen now). */
    private readonly probeConfig: pg.ClientConfig | (() => pg.ClientConfig),
    private readonly timings: LivenessTimings = TIMINGS,
  ) {
    pool.on('remove', (client) => this.clients.delete(client));
    this.timer = setInterval(() => this.check(), timings.checkEveryMillis);
    // The CLI shares this code: a timer must not keep a finished process alive.
    this.timer.unref();
  }

  /** Follows a new connection's statements (its `query`, as Kysely calls it: a promise). */
  track(client: pg.PoolClient): void {
    const state = { outstanding: 0, since: 0 };
    this.clients.set(client, state);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const result = query(...args);
      if (!(result instanceof Promise)) return result;
      if (state.outstanding++ === 0) state.since = Date.now();
      const settled = () => void state.outstanding--;
      result.then(settled, settled);
      return result;
    };
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private check(): void {
    const now = Date.now();
    const { stuckAfterMillis } = this.timings;
    if (this.probing || now - this.lastProbe < stuckAfterMillis) return;
    const stuck = [...this.clients.values()].some(
      (state) => state.outstanding > 0 && now - state.since >= stuckAfterMillis,
    );
    if (!stuck) return;
    this.probing = true;
    this.lastProbe = now;
    void this.serverAnswers()
      .then((answers) => {
        if (!answers) this.cutAll();
      })
      .finally(() => {
        this.probing = false;
      });
  }

  /** Whether the server answers a fresh connection within the probe timeout (any answer counts). */
  private async serverAnswers(): Promise<boolean> {
    const { probeTimeoutMillis } = this.timings;
    const config = typeof this.probeConfig === 'function' ? this.probeConfig() : this.probeConfig;
    const client = new pg.Client({ ...config, connectionTimeoutMillis: probeTimeoutMillis });
    client.on('error', () => undefined);
    let timer: NodeJS.Timeout | undefined;
    const silence = new Promise<'silent'>((resolve) => {
      timer = setTimeout(() => resolve('silent'), probeTimeoutMillis);
    });
    const asked = (async () => {
      await client.connect();
      await client.query('select 1');
      return 'answered' as const;
      // An error message from the server is the server speaking: it is there, whatever it said.
    })().catch((error: unknown) => (error instanceof pg.DatabaseError ? ('answered' as const) : ('silent' as const)));
    const outcome = await Promise.race([asked, silence]);
    clearTimeout(timer);
    if (outcome === 'answered') await client.end().catch(() => undefined);
    else client.connection.stream.destroy();
    return outcome === 'answered';
  }

  private cutAll(): void {
    for (const client of this.clients.keys()) (client as unknown as pg.Client).connection.stream.destroy();
  }
}
