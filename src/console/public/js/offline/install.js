// Registers the service worker that keeps the console's shell on the device (../../sw.js).
// The page requires Trusted Types for script URLs; its one policy lets exactly the worker's
// own address through, so nothing else can ever be loaded as a script this way.

const WORKER = '/console/sw.js';

export function installServiceWorker() {
  if (!('serviceWorker' in navigator)) return;
  const policy = window.trustedTypes?.createPolicy('console-service-worker', {
    createScriptURL: (url) => {
      if (url !== WORKER) throw new TypeError(`Only ${WORKER} may be registered as the console's worker`);
      return url;
    },
  });
  navigator.serviceWorker
    .register(policy ? policy.createScriptURL(WORKER) : WORKER, { scope: '/console' })
    // Without it the console still works online; it only cannot start without a network.
    .catch((error) => console.warn('The console could not be kept for offline use', error));
}
