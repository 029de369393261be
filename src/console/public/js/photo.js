// A loss's photo (issue 43, docs/photos.md): taken with the handheld's camera or chosen from
// its files, scaled down on the device (a phone photo is 3–6 MB; the service takes 2 MiB), named
// by the SHA-256 of its bytes — known offline, so the loss entry's `loss_image` is known at scan
// time — and shown back from the service with the token (an <img> cannot send one).

import { path } from './api.js';
import { h } from './dom.js';

/** The long side a loss photo is scaled to: enough to see the damage and read a label. */
const LONG_SIDE = 1600;
const SERVICE_LIMIT = 2 * 1024 * 1024;

/** A photo field: a file input that opens the camera on a handheld, and a preview. */
export function photoField() {
  const input = h('input', {
    name: 'photo',
    type: 'file',
    accept: 'image/jpeg,image/png,image/webp,image/*',
    capture: 'environment',
  });
  const preview = h('img', { class: 'photo-preview', alt: 'The photo of the loss', hidden: true });
  const note = h('p', { class: 'field-hint', 'aria-live': 'polite' });
  let prepared;
  // Set while a chosen photo is scaled and named; the loss waits for it (busy()).
  let preparing;

  input.addEventListener('change', () => {
    input.removeAttribute('aria-invalid');
    preparing = prepare();
  });

  async function prepare() {
    prepared = undefined;
    note.dataset.failed = 'false';
    if (preview.src) URL.revokeObjectURL(preview.src);
    preview.hidden = true;
    const file = input.files?.[0];
    if (!file) return (note.textContent = '');
    note.textContent = 'Preparing the photo…';
    try {
      const blob = await scaled(file);
      if (blob.size > SERVICE_LIMIT) throw new Error('it is still larger than 2 MB after scaling');
      prepared = { blob, type: blob.type, sha256: await sha256Hex(blob) };
      preview.src = URL.createObjectURL(blob);
      preview.hidden = false;
      note.textContent = `Photo ready (${Math.round(blob.size / 1024)} KB).`;
    } catch (error) {
      note.dataset.failed = 'true';
      note.textContent = `This photo cannot be used (${error.message}): take another, or book the loss without one.`;
    }
  }

  return {
    input,
    elements: [input, preview, note],
    /** The prepared photo ({ blob, type, sha256 }), or undefined when none was taken or it could not be used. */
    current: () => prepared,
    /** Whether a photo was chosen and is still being scaled and named. */
    busy: () =>
      preparing !== undefined && input.files?.length > 0 && prepared === undefined && note.dataset.failed !== 'true',
    reset() {
      input.value = '';
      prepared = undefined;
      preparing = undefined;
      if (preview.src) URL.revokeObjectURL(preview.src);
      preview.removeAttribute('src');
      preview.hidden = true;
      note.textContent = '';
    },
  };
}

/** The photo as a JPEG whose long side is at most LONG_SIDE; a small one is re-encoded the same way (no location data kept). */
async function scaled(file) {
  const bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
  const ratio = Math.min(1, LONG_SIDE / Math.max(bitmap.width, bitmap.height));
  const canvas = h('canvas', {
    width: String(Math.round(bitmap.width * ratio)),
    height: String(Math.round(bitmap.height * ratio)),
  });
  canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const encode = (quality) =>
    new Promise((resolve, reject) =>
      canvas.toBlob(
        (blob) => (blob ? resolve(blob) : reject(new Error('it could not be encoded'))),
        'image/jpeg',
        quality,
      ),
    );
  const good = await encode(0.8);
  return good.size <= SERVICE_LIMIT ? good : encode(0.6);
}

async function sha256Hex(blob) {
  const digest = await crypto.subtle.digest('SHA-256', await blob.arrayBuffer());
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The path of a store's photo: the value of a loss entry's `loss_image` (docs/photos.md). */
export const photoPath = (store, sha256) => `/api/v2/public${path('/stores/', store, '/photos/', sha256)}`;

/** The outbox action that uploads a photo; sent before the loss that names it. */
export function photoUploadAction(ctx, photo, label) {
  return {
    store: ctx.store.store_number,
    kind: 'photo',
    label,
    method: 'PUT',
    route: path('/stores/', ctx.store.store_number, '/photos/', photo.sha256),
    raw: photo.blob,
    contentType: photo.type,
    scannedAt: new Date().toISOString(),
    by: ctx.me.name,
  };
}

/**
 * A "Show photo" button for an entry's `exception_image` when it names a photo of this
 * service (else null): the photo is read with the token and shown as a picture.
 */
export function entryPhoto(ctx, image) {
  const match = /^\/api\/v2\/public(\/stores\/[^/]+\/photos\/[0-9a-f]{64})$/.exec(image ?? '');
  if (!match) return null;
  const holder = h('div', { class: 'entry-photo' });
  const button = h(
    'button',
    {
      type: 'button',
      onclick: async () => {
        button.disabled = true;
        try {
          const { blob } = await ctx.api.download(match[1]);
          holder.replaceChildren(
            h('img', { class: 'photo-preview', src: URL.createObjectURL(blob), alt: 'The photo of the loss' }),
          );
        } catch (failure) {
          holder.replaceChildren(h('p', { class: 'error-text' }, failure.sentence ?? String(failure.message)));
          button.disabled = false;
        }
      },
    },
    'Show photo',
  );
  holder.append(button);
  return holder;
}
