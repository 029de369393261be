// The console's service worker (issue 43): the shell — the page, its styles and modules —
// loads without a network. Network first, so a new version shows at once when online (every
// console file is revalidated anyway); the device's copy when the network fails or stalls.
// API calls never pass through here: the outbox and the read cache (js/offline/) handle them.

const CACHE = 'store-console-shell-v1';
const SHELL_LIST = '/console/shell.json';
/** A network that answers nothing (a stockroom's last bar of Wi-Fi) is given this long. */
const NETWORK_WAIT_MS = 4000;

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      const shell = await (await fetch(SHELL_LIST, { cache: 'no-store' })).json();
      await cache.addAll(shell.files);
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname !== '/console' && !url.pathname.startsWith('/console/')) return;
  event.respondWith(networkFirst(event.request, url));
});

async function networkFirst(request, url) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetchWithin(request, NETWORK_WAIT_MS);
    if (response.ok) await cache.put(url.pathname, response.clone());
    return response;
  } catch {
    // The page is one document whatever its hash; its files are kept by path.
    const kept = await cache.match(request.mode === 'navigate' ? '/console' : url.pathname);
    return kept ?? Response.error();
  }
}

async function fetchWithin(request, waitMs) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), waitMs);
  try {
    return await fetch(request, { signal: controller.signal });
  } finally {
    clearTimeout(timer);
  }
}
