import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppContext } from './app-context.js';
import { createAppContext } from './create-context.js';
import type { Config } from './config.js';
import { createDb, type DbHandle } from './db/connect.js';
import { migrateToLatest } from './db/migrate.js';
import { API_PREFIX } from './plugins/auth.js';
import { registerErrorHandler } from './plugins/error-handler.js';
import { clientErrorHandler, frameworkErrorHandler, MAX_PARAM_LENGTH } from './plugins/framework-errors.js';
import { requestIdOf } from './plugins/request-id.js';
import { registerRouteHooks } from './plugins/hook-order.js';
import { registerOpenApi } from './plugins/openapi.js';
import { registerProbes } from './plugins/probes.js';
import { registerReadRouting } from './plugins/read-routing.js';
import { registerShutdown } from './plugins/shutdown.js';
import { BODY_LIMIT_BYTES, registerJsonBody } from './plugins/request-parsing.js';
import { customerOrderRoutes } from './modules/customer-orders/routes.js';
import { deliveryRoutes } from './modules/deliveries/routes.js';
import { receiptRoutes } from './modules/deliveries/receipts/routes.js';
import { externalCountingRoutes } from './modules/external-counting/routes.js';
import { countingAssignmentRoutes } from './modules/counting-assignments/routes.js';
import { movementRoutes } from './modules/movements/routes.js';
import { productListRoutes } from './modules/product-lists/routes.js';
import { stockLogRoutes } from './modules/stock-logs/routes.js';
import { storeRoutes } from './modules/stores/routes.js';
import { productRoutes } from './modules/products/routes.js';
import { priceRoutes } from './modules/products/prices/routes.js';
import { discountRoutes } from './modules/products/discounts/routes.js';
import { categoryRoutes } from './modules/categories/routes.js';
import { reasonCodeRoutes } from './modules/reason-codes/routes.js';
import { locationRoutes } from './modules/locations/routes.js';
import { storeProductRoutes } from './modules/store-products/routes.js';
import { storeStockRoutes } from './modules/store-stock/routes.js';
import { photoRoutes } from './modules/photos/routes.js';
import { tokenRoutes } from './modules/tokens/routes.js';
import { clientRoutes } from './modules/oauth/routes.js';
import { oauthEndpoints } from './modules/oauth/token-endpoint.js';
import { eventRoutes } from './modules/events/routes.js';
import { startEventUpkeep } from './modules/events/upkeep.js';
import { webhookRoutes } from './modules/webhooks/routes.js';
import { startWebhookDispatcher } from './modules/webhooks/dispatcher.js';
import { ensureBootstrapAdmin } from './modules/tokens/service.js';
import { consolePlugin } from './console/plugin.js';
import { CursorCodec } from './shared/cursor.js';
import { ErrorEnvelope } from './shared/schemas.js';
import { createValidatorCompiler } from './shared/validation.js';

export interface BuildOptions {
  /** Log to stdout (the server); tests and benchmarks keep quiet. */
  logger?: boolean;
}

/**
 * The one application: the server, the tests and the benchmarks all build it here, so
 * what is tested and measured is what runs. Opens and migrates the database first.
 */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const handle = createDb(config.databaseUrl, {
    sqliteSynchronous: config.sqliteSynchronous,
    readUrl: config.databaseReadUrl,
    readMaxLagSeconds: config.databaseReadMaxLagSeconds,
  });
  try {
    await migrateToLatest(handle);
    // The ledger's coming months exist before the first entry is written (PostgreSQL; nothing on SQLite).
    await handle.dialect.ensureLedgerMonths(handle.db, Date.now());
    const generated = await ensureBootstrapAdmin(handle.db, config.adminToken);
    if (generated !== undefined) config.onGeneratedAdminToken?.(generated);
    const cursors = new CursorCodec(await cursorSecret(handle));
    return await assemble(config, handle, cursors, options);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

async function assemble(
  config: Config,
  handle: DbHandle,
  cursors: CursorCodec,
  options: BuildOptions,
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ? { level: config.logLevel } : false,
    bodyLimit: BODY_LIMIT_BYTES,
    // The caller's x-request-id when it is plausible, else a fresh UUID (plugins/request-id.ts).
    requestIdHeader: false,
    genReqId: requestIdOf,
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    // Refusals made before any route or hook runs still answer in the PRODUCT §3 envelope.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    // Requests that arrive while the server closes get the PRODUCT §3 envelope from
    // plugins/shutdown.ts, not Fastify's own 503 body (issue 40).
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as FastifyInstance;

  const ctx = createAppContext(config, handle, cursors);
  app.decorate('ctx', ctx);
  // Services get `request.ctx`: the app's context, unless a plugin gives the request its own.
  app.decorateRequest('ctx', null as unknown as AppContext);
  app.addHook('onRequest', (request, reply, done) => {
    request.ctx = ctx;
    // Set first, so every answer carries it: errors and 404s keep headers set before them.
    reply.header('x-request-id', request.id);
    done();
  });
  // SIGTERM: new requests 503 in the envelope, in-flight ones finish or are cut cleanly (issue 40).
  registerShutdown(app, handle);
  app.setValidatorCompiler(createValidatorCompiler());
  registerErrorHandler(app, handle.dialect);
  registerJsonBody(app);
  documentErrorResponses(app);
  app.addHook('onClose', async () => handle.close());
  // The change feed's numbering and retention (PRODUCT §9), stopped before the database closes.
  const eventUpkeep = startEventUpkeep(handle, config.eventsRetentionDays ?? 30, app.log);
  app.addHook('preClose', async () => eventUpkeep.stop());
  // Webhook deliveries (PRODUCT §9) from every process; stopping gives their leases back.
  const webhookDispatcher = startWebhookDispatcher(handle, config, app.log);
  app.addHook('preClose', async () => webhookDispatcher.stop());

  // Per-route hooks (auth, rate limit, idempotency, list cache, metrics…) in their one order.
  await registerRouteHooks(app, { config, handle });
  // Read scaling (issue 31): after ROUTE_HOOKS, so a write's token is read after idempotency's
  // onSend committed it, and a GET's database is picked after auth passed it (read-routing.ts).
  registerReadRouting(app, handle);
  await registerOpenApi(app);
  registerProbes(app, handle);
  await app.register(storeRoutes, { prefix: API_PREFIX });
  await app.register(productRoutes, { prefix: API_PREFIX });
  await app.register(priceRoutes, { prefix: API_PREFIX });
  await app.register(discountRoutes, { prefix: API_PREFIX });
  await app.register(categoryRoutes, { prefix: API_PREFIX });
  await app.register(reasonCodeRoutes, { prefix: API_PREFIX });
  await app.register(locationRoutes, { prefix: API_PREFIX });
  await app.register(storeProductRoutes, { prefix: API_PREFIX });
  await app.register(stockLogRoutes, { prefix: API_PREFIX });
  await app.register(movementRoutes, { prefix: API_PREFIX });
  await app.register(externalCountingRoutes, { prefix: API_PREFIX });
  await app.register(countingAssignmentRoutes, { prefix: API_PREFIX });
  await app.register(storeStockRoutes, { prefix: API_PREFIX });
  await app.register(photoRoutes, { prefix: API_PREFIX });
  await app.register(deliveryRoutes, { prefix: API_PREFIX });
  await app.register(receiptRoutes, { prefix: API_PREFIX });
  await app.register(customerOrderRoutes, { prefix: API_PREFIX });
  await app.register(productListRoutes, { prefix: API_PREFIX });
  await app.register(tokenRoutes, { prefix: API_PREFIX });
  await app.register(clientRoutes, { prefix: API_PREFIX });
  // OAuth2 client credentials (issue 41): /oauth2/token and /.well-known/*, outside the API prefix.
  await app.register(oauthEndpoints, { config });
  await app.register(eventRoutes, { prefix: API_PREFIX });
  await app.register(webhookRoutes, { prefix: API_PREFIX });
  // The store console: static pages at /console that call the API above (docs/console.md).
  await app.register(consolePlugin);
  return app;
}

/** Every route documents the error envelope for its 4xx and 5xx answers. */
function documentErrorResponses(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith(API_PREFIX) || !route.schema) return;
    const response = (route.schema.response ?? {}) as Record<string, unknown>;
    route.schema.response = {
      ...response,
      '4xx': response['4xx'] ?? ErrorEnvelope,
      '5xx': response['5xx'] ?? ErrorEnvelope,
    };
  });
}

/** Secret that signs scroll cursors; shared through the database by every process. */
async function cursorSecret(handle: DbHandle): Promise<string> {
  await handle.db
    .insertInto('meta')
    .values({ key: 'cursor_secret', value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await handle.db
    .selectFrom('meta')
    .select('value')
    .where('key', '=', 'cursor_secret')
    .executeTakeFirstOrThrow();
  return row.value;
}
