import { createHash } from 'node:crypto';
import type { Action } from '../actions.js';
import type { ChainModel } from '../model.js';
import { API, firstOf, type Plan } from './plan.js';

const JPEG = [0xff, 0xd8, 0xff, 0xe0];
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * The photos the generator sends (docs/photos.md): two JPEGs and a PNG by their first bytes —
 * the service checks no more of an image — and PNG bytes that claim to be a JPEG (415).
 */
export const PHOTOS: ReadonlyArray<{ bytes: Buffer; type: string; honest: boolean }> = [
  { bytes: Buffer.from([...JPEG, 1, 2, 3]), type: 'image/jpeg', honest: true },
  { bytes: Buffer.from([...JPEG, 4, 5, 6]), type: 'image/jpeg', honest: true },
  { bytes: Buffer.from([...PNG, 7, 8]), type: 'image/png', honest: true },
  { bytes: Buffer.from([...PNG, 9]), type: 'image/jpeg', honest: false },
];

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * A loss photo uploaded or read (issue 43): the first upload of bytes to a store stores them
 * (201), every later one is a no-op (200); a store token only its stores (403); a store that is
 * no live store is a 404 for an upload, and a read finds only what was stored.
 */
export function planPhoto(model: ChainModel, action: Extract<Action, { kind: 'photo' }>): Plan {
  const photo = PHOTOS[action.photo]!;
  const hash = sha256(photo.bytes);
  const key = `${action.store}|${hash}`;
  const url = `${API}/stores/${encodeURIComponent(action.store)}/photos/${hash}`;
  if (action.read)
    return {
      label: `photo ${action.photo} of ${action.store} read by ${action.who}`,
      request: { method: 'GET', url, who: action.who },
      expect: [firstOf(model.routeRefusal(action.who, false, action.store), !model.photos.has(key) && 404) ?? 200],
      // The answer's body as the runner reads it (text) against the same bytes read the same way.
      check: (_m, answer) =>
        answer.status === 200 && answer.json !== photo.bytes.toString('utf8')
          ? `photo ${action.photo} of ${action.store} came back other than it was stored`
          : undefined,
    };
  return {
    label: `photo ${action.photo} uploaded to ${action.store} by ${action.who}`,
    request: {
      method: 'PUT',
      url,
      who: action.who,
      body: photo.bytes,
      headers: { 'content-type': photo.type },
    },
    expect: [
      firstOf(
        model.routeRefusal(action.who, true, action.store),
        !photo.honest && 415,
        !model.isStore(action.store) && 404,
        model.photos.has(key) && 200,
      ) ?? 201,
    ],
    commit: (m) => {
      m.photos.add(key);
    },
  };
}
