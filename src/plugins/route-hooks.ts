import type { FastifyInstance, RouteOptions } from 'fastify';

type RouteHookName = 'onRequest' | 'preValidation' | 'preHandler' | 'onSend' | 'onResponse';

/**
 * Attaches `hook` to every route `wants` — instead of a global hook that runs on every
 * request of every route only to find it has nothing to do there. On the hottest reads a
 * global hook costs a measurable share of the request (issue 5: single-product stock).
 *
 * Register in the order the hooks must run: a route's own hooks run in the order the
 * `onRoute` callbacks added them, after every global hook of the same phase.
 */
export function hookRoutes(
  app: FastifyInstance,
  name: RouteHookName,
  wants: (route: RouteOptions) => boolean,
  hook: unknown,
): void {
  hookEachRoute(app, name, wants, () => hook);
}

/** The same, with a hook made for each route (e.g. one that knows the route's URL). */
export function hookEachRoute(
  app: FastifyInstance,
  name: RouteHookName,
  wants: (route: RouteOptions) => boolean,
  hookFor: (route: RouteOptions) => unknown,
): void {
  app.addHook('onRoute', (route) => {
    if (!wants(route)) return;
    const hook = hookFor(route);
    const existing = route[name] as unknown;
    const hooks = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
    // Fastify derives a GET route's HEAD twin from a copy of the options taken before these
    // callbacks ran, then runs them again for it: never change an array it may share.
    if (!hooks.includes(hook)) (route as unknown as Record<string, unknown>)[name] = [...hooks, hook];
  });
}
