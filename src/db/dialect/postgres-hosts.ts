import pg from 'pg';

/**
 * Several hosts in one DATABASE_URL, as libpq takes them (issue 31 "Writes find the primary"):
 * `postgres://u:p@h1:5432,h2:5433/db?target_session_attrs=read-write`. node-postgres connects to
 * one host only, so this file does what libpq does on top of it: parse the host list, find the
 * host whose server matches `target_session_attrs`, send every new connection there, and look
 * again when that server is lost or turns out to be read-only (docs/decisions.md "High
 * availability"). The parsing and the discovery are reusable for a URL of standbys
 * (`target_session_attrs=standby`, read scaling).
 */

/** libpq's target_session_attrs values (PostgreSQL 14+). */
export const TARGET_SESSION_ATTRS = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'] as const;
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

export interface PostgresHost {
  /** The host as named (IPv6 without brackets, percent-decoded), '' for the default. */
  host: string;
  /** The port as named, undefined for the default. */
  port: number | undefined;
  /** `host:port` for messages and metrics: never the credentials. */
  name: string;
  /** A single-host URL for pg: the original with only this host, and without `schema` and `target_session_attrs`. */
  url: string;
}

export interface PostgresTarget {
  hosts: PostgresHost[];
  /** From the URL; default `read-write` when it names several hosts (the service writes), else `any`. */
  targetSessionAttrs: TargetSessionAttrs;
  /** `?schema=` (not a libpq parameter): every table in that schema. */
  schema: string | undefined;
  /**
   * `?pooler=transaction` (not a libpq parameter): the connections go through a pooler in
   * transaction mode (pgbouncer): no named prepared statements, no session state (postgres.ts).
   */
  pooler: 'transaction' | undefined;
  /** Whether connections need a look at the servers first (several hosts, or an attribute other than `any`). */
  needsDiscovery: boolean;
}

const URL_SHAPE = /^(postgres(?:ql)?):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#.*)?$/i;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function parseHostSpec(spec: string, url: string): { raw: string; host: string; port: number | undefined } {
  const match = spec.startsWith('[') ? /^\[([^\]]*)\](?::(\d*))?$/.exec(spec) : /^([^:[\]]*)(?::(\d*))?$/.exec(spec);
  if (match === null) throw new Error(`Invalid host "${spec}" in DATABASE_URL ${redact(url)}`);
  const portText = match[2];
  let port: number | undefined;
  if (portText !== undefined && portText !== '') {
    port = Number(portText);
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new Error(`Invalid port "${portText}" in DATABASE_URL ${redact(url)}`);
  }
  let host: string;
  try {
    host = decodeURIComponent(match[1]!);
  } catch {
    throw new Error(`Invalid host "${spec}" in DATABASE_URL ${redact(url)}`);
  }
  return { raw: spec, host, port };
}

/** The URL with its password replaced, for error messages. */
export function redact(url: string): string {
  return url.replace(/^([^:]+:\/\/[^:@/]*:)[^@/]*@/, '$1***@');
}

/**
 * Parses a `postgres://` / `postgresql://` URL that may name several hosts
 * (`h1[:port],h2[:port],[::1][:port]…`). User, password, database and every other query
 * parameter are kept as they are, for pg to read from each single-host URL.
 */
export function parsePostgresUrl(url: string): PostgresTarget {
  const match = URL_SHAPE.exec(url);
  if (match === null) throw new Error(`Invalid DATABASE_URL (expected postgres://…): ${redact(url)}`);
  const [, scheme, authority, path, query] = match as unknown as [string, string, string, string, string | undefined];
  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? '' : authority.slice(0, at + 1);
  const hostList = at === -1 ? authority : authority.slice(at + 1);
  const params = new URLSearchParams(query ?? '');
  const schema = params.get('schema') ?? undefined;
  if (schema !== undefined && !SCHEMA_NAME.test(schema))
    throw new Error(`Invalid schema name in DATABASE_URL: ${schema}`);
  const attrsText = params.get('target_session_attrs') ?? undefined;
  const poolerText = params.get('pooler') ?? undefined;
  if (poolerText !== undefined && poolerText !== 'transaction')
    throw new Error(`Invalid pooler in DATABASE_URL: ${poolerText} (expected transaction)`);
  params.delete('pooler');
  params.delete('schema');
  params.delete('target_session_attrs');
  const rest = params.toString();
  const specs = hostList.split(',').map((spec) => parseHostSpec(spec, url));
  let targetSessionAttrs: TargetSessionAttrs;
  if (attrsText === undefined) targetSessionAttrs = specs.length > 1 ? 'read-write' : 'any';
  else if ((TARGET_SESSION_ATTRS as readonly string[]).includes(attrsText))
    targetSessionAttrs = attrsText as TargetSessionAttrs;
  else
    throw new Error(
      `Invalid target_session_attrs in DATABASE_URL: ${attrsText} (expected one of ${TARGET_SESSION_ATTRS.join(', ')})`,
    );
  const hosts = specs.map(({ raw, host, port }) => ({
    host,
    port,
    name: `${host.includes(':') ? `[${host}]` : host || 'localhost'}:${port ?? 5432}`,
    url: `${scheme}://${userinfo}${raw}${path}${rest === '' ? '' : `?${rest}`}`,
  }));
  return {
    hosts,
    targetSessionAttrs,
    schema,
    pooler: poolerText,
    needsDiscovery: hosts.length > 1 || targetSessionAttrs !== 'any',
  };
}

/** What a server says about itself. */
export interface ServerRole {
  /** `pg_is_in_recovery()`: a standby. */
  inRecovery: boolean;
  /** `transaction_read_only` of a new session: a standby, or `default_transaction_read_only` on. */
  readOnly: boolean;
}

/** Whether a server of that role is one `attrs` asks for; `prefer-standby` takes any server (the preference is in the choice). */
export function matches(attrs: TargetSessionAttrs, role: ServerRole): boolean {
  switch (attrs) {
    case 'any':
    case 'prefer-standby':
      return true;
    case 'read-write':
      return !role.readOnly;
    case 'read-only':
      return role.readOnly;
    case 'primary':
      return !role.inRecovery;
    case 'standby':
      return role.inRecovery;
  }
}

/**
 * The role a new connection's server announced (PostgreSQL 14+ reports `in_hot_standby` and
 * `default_transaction_read_only` while connecting, at no extra round trip), or undefined for
 * an older server, which says nothing.
 */
function announcedRole(reported: ReadonlyMap<string, string>): ServerRole | undefined {
  const standby = reported.get('in_hot_standby');
  const readOnly = reported.get('default_transaction_read_only');
  if (standby === undefined || readOnly === undefined) return undefined;
  return { inRecovery: standby === 'on', readOnly: standby === 'on' || readOnly === 'on' };
}

/**
 * No host of the URL is one `target_session_attrs` asks for (all down, or only standbys while a
 * failover is under way). SQLSTATE 08001 (sqlclient_unable_to_establish_sqlconnection), so the
 * dialect classifies it as `unavailable`: 503 with Retry-After, nothing sent to any server.
 */
export class NoMatchingHostError extends Error {
  readonly code = '08001';
  constructor(attrs: TargetSessionAttrs, findings: readonly string[]) {
    super(
      `no host of DATABASE_URL is ${attrs === 'primary' ? 'a primary' : attrs === 'read-write' ? 'accepting writes' : `"${attrs}"`} (target_session_attrs=${attrs}): ${findings.join('; ')}`,
    );
    this.name = 'NoMatchingHostError';
  }
}

const describeFailure = (error: unknown): string => {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return `${typeof message === 'string' ? message : String(error)}${typeof code === 'string' && !String(message).includes(code) ? ` (${code})` : ''}`;
};

/** Asks one server its role on a connection of its own, within `timeoutMillis`; an Error when it cannot be had. */
export async function probeRole(
  host: PostgresHost,
  config: pg.ClientConfig,
  timeoutMillis: number,
): Promise<ServerRole | Error> {
  const client = new pg.Client({
    ...config,
    connectionString: host.url,
    connectionTimeoutMillis: timeoutMillis,
    query_timeout: timeoutMillis,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ in_recovery: boolean; read_only: string }>(
      "select pg_catalog.pg_is_in_recovery() as in_recovery, pg_catalog.current_setting('transaction_read_only') as read_only",
    );
    void client.end().catch(() => undefined);
    return { inRecovery: rows[0]!.in_recovery, readOnly: rows[0]!.read_only === 'on' };
  } catch (error) {
    // A server that went silent would hold a polite end() open: drop the socket.
    client.connection.stream.destroy();
    return error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * libpq's choice: the first host, in the URL's order, whose server matches `attrs`
 * (`prefer-standby`: the first standby, else the first that answers). Every host is asked at
 * once, so a dead host costs its refusal, and a silent one at most `timeoutMillis`, not one
 * after the other.
 */
export async function findHost(
  target: Pick<PostgresTarget, 'hosts' | 'targetSessionAttrs'>,
  config: pg.ClientConfig,
  timeoutMillis: number,
): Promise<{ host: PostgresHost; role: ServerRole } | NoMatchingHostError> {
  const attrs = target.targetSessionAttrs;
  const asked = target.hosts.map((host) => probeRole(host, config, timeoutMillis));
  const findings: string[] = [];
  let fallback: { host: PostgresHost; role: ServerRole } | undefined;
  for (const [index, host] of target.hosts.entries()) {
    const role = await asked[index]!;
    if (role instanceof Error) {
      findings.push(`${host.name} ${describeFailure(role)}`);
      continue;
    }
    if (attrs === 'prefer-standby') {
      if (role.inRecovery) return { host, role };
      fallback ??= { host, role };
      findings.push(`${host.name} is a primary`);
      continue;
    }
    if (matches(attrs, role)) return { host, role };
    findings.push(`${host.name} is ${role.inRecovery ? 'a standby' : 'read-only'}`);
  }
  return fallback ?? new NoMatchingHostError(attrs, findings);
}

/** How long a failed look for the host answers for itself: a burst of requests during a failover asks the servers once per this, not once each. */
const RETRY_DISCOVERY_AFTER_MILLIS = 100;
/** How long asking one server its role may take (connecting and one statement). */
const PROBE_TIMEOUT_MILLIS = 2000;
/** SQLSTATEs that say a connection's server is no longer what it was: read-only now (25006), shutting down or starting (57P…), the connection broken (08…). */
const LOST_SERVER = /^(25006|57P|08)/;

/** A pg client that knows which host it was made for and what its server announced while connecting. */
class HostClient extends pg.Client {
  readonly target: PostgresHost;
  readonly reported = new Map<string, string>();
  constructor(config: pg.ClientConfig, target: PostgresHost) {
    super({ ...config, connectionString: target.url });
    this.target = target;
    (this as unknown as { connection: NodeJS.EventEmitter }).connection.on(
      'parameterStatus',
      (message: { parameterName: string; parameterValue: string }) => {
        this.reported.set(message.parameterName, message.parameterValue);
      },
    );
  }
}

/**
 * What Kysely's PostgresDialect needs of a pool (`connect`, `end`), over one pg.Pool whose new
 * connections go to the host found for the URL's `target_session_attrs`.
 *
 * - One host and no attribute (the usual URL): the pg.Pool as it always was — no look, no
 *   extra round trip, nothing wrapped.
 * - Otherwise the host is looked for once (every host asked `pg_is_in_recovery()` and
 *   `transaction_read_only` at once, in parallel), then every new connection goes there. A
 *   PostgreSQL 14+ server also announces its role while a connection is made, which is checked
 *   at no cost. The look is made again when the chosen server is lost (a connection error, a
 *   connection refused) or answers as read-only (SQLSTATE 25006): the statement in flight fails
 *   as before (its transaction never commits: 503 with Retry-After), the next connection goes
 *   to the host found then, and idle connections to the old host are discarded as they come
 *   up. While no host matches (a failover under way), connecting fails at once with
 *   NoMatchingHostError (503 too).
 *
 * The pg.Pool (`pool`) keeps its events, counts and limit (one pool: at most `max`
 * connections in all, whichever host they go to).
 */
export class HostPool {
  readonly pool: pg.Pool;
  private chosen: PostgresHost;
  private known: boolean;
  private looking: Promise<PostgresHost> | undefined;
  private lastFailure: { at: number; error: Error } | undefined;

  constructor(
    readonly target: PostgresTarget,
    options: Omit<pg.PoolConfig, 'connectionString' | 'host' | 'port' | 'Client'>,
    private readonly probeTimeoutMillis = PROBE_TIMEOUT_MILLIS,
  ) {
    this.chosen = target.hosts[0]!;
    this.known = !target.needsDiscovery;
    if (!target.needsDiscovery) {
      this.pool = new pg.Pool({ ...options, connectionString: this.chosen.url });
      return;
    }
    const choice = () => this.chosen;
    const Client = class extends HostClient {
      // pg-pool makes each client with the pool's options.
      constructor(config: pg.ClientConfig = {}) {
        super(config, choice());
      }
    };
    this.pool = new pg.Pool({ ...options, Client });
    this.pool.on('connect', (client) => this.watch(client as unknown as HostClient));
  }

  /** A client config for a connection of one's own to the chosen host (the liveness watch's question). */
  clientConfig(extra: pg.ClientConfig = {}): pg.ClientConfig {
    return { ...extra, connectionString: this.chosen.url };
  }

  async connect(): Promise<pg.PoolClient> {
    if (!this.target.needsDiscovery) return this.pool.connect();
    let refusedBy: PostgresHost | undefined;
    // Bounded: each pass either returns, or discards an idle connection to a host no longer
    // chosen (at most `max` of them), or retries once after the chosen host refused.
    for (let pass = 0; ; pass++) {
      const host = this.known ? this.chosen : await this.look();
      let client: pg.PoolClient;
      try {
        client = await this.pool.connect();
      } catch (error) {
        // A server that answered with another refusal (bad password, too many connections) is
        // still the one: no look. Else nothing was sent, so after a look finds another host,
        // connecting there is safe.
        const code = (error as { code?: unknown }).code;
        if (error instanceof pg.DatabaseError && !(typeof code === 'string' && LOST_SERVER.test(code))) throw error;
        this.lost(host);
        if (refusedBy === undefined) {
          refusedBy = host;
          const next = await this.look().catch(() => undefined);
          if (next !== undefined && next !== host) continue;
        }
        throw error;
      }
      // A connection made for the host chosen now, whose server did not announce another role;
      // else an idle one to a host chosen before (discarded), or a server that changed its role.
      const made = client as unknown as HostClient;
      const role = announcedRole(made.reported);
      const current = made.target === this.chosen;
      if (current && (role === undefined || matches(this.target.targetSessionAttrs, role))) return client;
      client.release(true);
      if (current) this.lost(made.target);
      if (pass >= 64)
        throw new NoMatchingHostError(this.target.targetSessionAttrs, [
          `${made.target.name} keeps answering as a server of another role`,
        ]);
    }
  }

  async end(): Promise<void> {
    await this.pool.end();
  }

  /** Forgets the chosen host if it is still `host`: the next connection looks again. */
  private lost(host: PostgresHost): void {
    if (this.chosen === host) this.known = false;
  }

  /** One look at a time; a failed one answers for RETRY_DISCOVERY_AFTER_MILLIS. */
  private look(): Promise<PostgresHost> {
    if (this.known) return Promise.resolve(this.chosen);
    if (this.looking !== undefined) return this.looking;
    const failure = this.lastFailure;
    if (failure !== undefined && Date.now() - failure.at < RETRY_DISCOVERY_AFTER_MILLIS)
      return Promise.reject(failure.error);
    const looking = findHost(this.target, {}, this.probeTimeoutMillis)
      .then((found) => {
        if (found instanceof Error) {
          this.lastFailure = { at: Date.now(), error: found };
          throw found;
        }
        this.lastFailure = undefined;
        this.chosen = found.host;
        this.known = true;
        return found.host;
      })
      .finally(() => {
        if (this.looking === looking) this.looking = undefined;
      });
    this.looking = looking;
    return looking;
  }

  /** A connection's loss, or a statement's answer that its server is no longer what was chosen, sends the next connection to look again. */
  private watch(client: HostClient): void {
    client.on('error', () => this.lost(client.target));
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const result = query(...args);
      if (result instanceof Promise) {
        result.then(undefined, (error: unknown) => {
          const code = (error as { code?: unknown })?.code;
          if (typeof code === 'string' && LOST_SERVER.test(code)) this.lost(client.target);
        });
      }
      return result;
    };
  }
}
