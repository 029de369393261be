/**
 * Headers on every console response (issue 16: "a strict Content-Security-Policy on the
 * page, no inline scripts"). The page may load only its own files and talk only to its
 * own origin:
 * - no inline script or style, no eval, no plugins, no frames, no foreign hosts;
 * - `'wasm-unsafe-eval'`, the one exception: without it a CSP refuses to compile any
 *   WebAssembly, and the camera's barcode reader for browsers without their own detector is
 *   WebAssembly (vendor.ts). It allows compiling WebAssembly only, never `eval` or `new
 *   Function` on JavaScript text; and as scripts still come from this origin alone and
 *   fetch from it alone, the only WebAssembly there is to compile is the file served here;
 * - `form-action 'none'`: forms are handled by the page's script, so even with scripts
 *   broken a form cannot be submitted and put what was typed (the token) into a URL;
 * - `require-trusted-types-for 'script'`: the page builds its DOM from nodes and text only,
 *   so any assignment of HTML text to `innerHTML` (the usual XSS sink) is refused outright;
 * - the one Trusted Types policy lets only `/console/sw.js` be registered as a worker;
 * - no referrer, no framing, no MIME sniffing, no window shared with other origins;
 * - of the device's features only the camera (scanning), and for this origin alone.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  // blob: the loss photo's preview and a photo read with the token (js/photo.js).
  "img-src 'self' blob:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "worker-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  // One policy, which lets exactly the service worker's own URL through (js/offline/install.js).
  'trusted-types console-service-worker',
].join('; ');

export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  // The camera for scanning (camera.js), on this origin only; nothing else a page could ask for.
  'permissions-policy': 'camera=(self), microphone=(), geolocation=(), payment=(), usb=(), serial=(), bluetooth=()',
  // Revalidate every time (cheap: an ETag match is a 304), so a new version shows at once.
  'cache-control': 'no-cache',
};
