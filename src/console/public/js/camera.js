// Scanning with the device's camera (issue 43). The browser's own barcode detector
// (`BarcodeDetector`: Chrome on Android and ChromeOS, Safari on iOS 17+) where it has one;
// elsewhere the same API from a library this service serves (/console/vendor/, a stand-in on
// ZXing compiled to WebAssembly), loaded only when the Camera button is pressed, so a page
// that never scans never downloads its megabyte (docs/decisions.md "Camera scanning"). The
// keyboard-wedge scanner every store handheld has, and typing, work everywhere too.
//
// The video stays on the device: frames go to the detector in the page and nowhere else, and
// the camera is switched off as soon as a code is read or the dialog is closed.

import { h } from './dom.js';

/** The symbologies of retail goods and shelf labels, of those the detector knows. */
const RETAIL_FORMATS = ['ean_13', 'ean_8', 'upc_a', 'upc_e', 'code_128', 'code_39', 'itf', 'qr_code', 'data_matrix'];
const LOOK_EVERY_MS = 150;
/** The library's module (the server bundles it, src/console/vendor.ts); the service worker keeps it for offline use. */
const DETECTOR_MODULE = '/console/vendor/barcode-detector.js';

/** A camera is all it takes: a browser without a detector of its own gets the library's. */
export const cameraAvailable = () => typeof navigator.mediaDevices?.getUserMedia === 'function';

/**
 * The browser's detector class if it has one, else the library's: fetched on the first scan
 * (then kept by the page, and by the service worker for offline use), its WebAssembly
 * compiled before the camera starts, so that a reader that cannot load says so at once.
 */
async function detectorClass() {
  if (typeof globalThis.BarcodeDetector === 'function') return globalThis.BarcodeDetector;
  try {
    const { BarcodeDetector, readerReady } = await import(DETECTOR_MODULE);
    await readerReady();
    return BarcodeDetector;
  } catch (cause) {
    throw Object.assign(new Error('reader unavailable', { cause }), { name: 'ReaderUnavailable' });
  }
}

/**
 * A "Camera" button that reads one code into `input` and then calls `onCode(code)`; null
 * when this browser has no camera to read codes from.
 */
export function cameraButton(input, onCode) {
  if (!cameraAvailable()) return null;
  return h(
    'button',
    {
      type: 'button',
      class: 'camera-button',
      'aria-label': 'Scan with the camera',
      onclick: async () => {
        const code = await readOneCode();
        if (!code) return input.focus();
        input.value = code;
        onCode(code);
      },
    },
    'Camera',
  );
}

/** Opens the camera in a dialog until a code is read (its text) or the user closes it (undefined). */
async function readOneCode() {
  const status = h('p', { class: 'camera-status', 'aria-live': 'polite' }, 'Starting the camera…');
  const video = h('video', { class: 'camera-video', autoplay: true, muted: true, playsinline: true });
  const close = h('button', { type: 'button', class: 'big' }, 'Close');
  const dialog = h('dialog', { class: 'camera', 'aria-label': 'Scan with the camera' }, video, status, close);
  document.body.append(dialog);
  dialog.showModal();
  let stream;
  let timer;
  let done = false;
  const stop = () => {
    done = true;
    clearTimeout(timer);
    for (const track of stream?.getTracks() ?? []) track.stop();
  };
  try {
    return await new Promise((resolve) => {
      close.addEventListener('click', () => resolve(undefined));
      dialog.addEventListener('cancel', () => resolve(undefined));
      void (async () => {
        try {
          const Detector = await detectorClass();
          const supported = await Detector.getSupportedFormats?.();
          const formats = supported ? RETAIL_FORMATS.filter((format) => supported.includes(format)) : RETAIL_FORMATS;
          const detector = new Detector({ formats });
          stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
          // Closed while the camera was starting: switched off at once.
          if (done) return stop();
          video.srcObject = stream;
          await video.play().catch(() => undefined);
          status.textContent = 'Hold the barcode in the middle of the picture.';
          const look = async () => {
            try {
              const [found] = await detector.detect(video);
              if (found?.rawValue) return resolve(found.rawValue.trim());
            } catch {
              // A frame the detector could not use (the video not yet playing): the next one may do.
            }
            if (!done) timer = setTimeout(look, LOOK_EVERY_MS);
          };
          void look();
        } catch (error) {
          status.textContent =
            error?.name === 'NotAllowedError'
              ? 'The camera is not allowed for this page: allow it in the browser’s settings, or use the scanner.'
              : error?.name === 'ReaderUnavailable'
                ? 'The barcode reader could not be loaded (is the network down?). Use the scanner or type the code.'
                : `The camera could not start (${error?.message ?? error}). Use the scanner or type the code.`;
        }
      })();
    });
  } finally {
    stop();
    dialog.close();
    dialog.remove();
  }
}
