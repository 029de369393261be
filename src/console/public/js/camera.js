// Scanning with the device's camera (issue 43), where the browser has a barcode detector
// (`BarcodeDetector`: Chrome on Android and ChromeOS, Safari on iOS 17+ behind no flag in
// standalone apps). Elsewhere no Camera button is shown: the keyboard-wedge scanner every
// store handheld has, and typing, work everywhere (docs/decisions.md "Camera scanning").
//
// The video stays on the device: frames go to the browser's detector and nowhere else, and
// the camera is switched off as soon as a code is read or the dialog is closed.

import { h } from './dom.js';

/** The symbologies of retail goods and shelf labels, of those the detector knows. */
const RETAIL_FORMATS = ['ean_13', 'ean_8', 'upc_a', 'upc_e', 'code_128', 'code_39', 'itf', 'qr_code', 'data_matrix'];
const LOOK_EVERY_MS = 150;

export const cameraAvailable = () =>
  typeof globalThis.BarcodeDetector === 'function' && typeof navigator.mediaDevices?.getUserMedia === 'function';

/**
 * A "Camera" button that reads one code into `input` and then calls `onCode(code)`; null
 * when this browser cannot read codes from a camera.
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
          const supported = await globalThis.BarcodeDetector.getSupportedFormats?.();
          const formats = supported ? RETAIL_FORMATS.filter((format) => supported.includes(format)) : RETAIL_FORMATS;
          const detector = new globalThis.BarcodeDetector({ formats });
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
