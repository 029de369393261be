// What receiving a delivery and picking a customer order share: a document (the delivery or
// the order) whose lines are scanned one product at a time, what this device still holds
// for it in the outbox, and the feedback a scanner user needs on every scan.

import { path } from '../api.js';
import { h } from '../dom.js';
import { cameraButton } from '../camera.js';
import { field, scanRow } from './floor-form.js';

/** Quantities have at most 3 decimals (PRODUCT §3). */
export const round = (value) => Math.round(value * 1000) / 1000;

const sameCode = (a, b) => typeof a === 'string' && typeof b === 'string' && a.toUpperCase() === b.toUpperCase();

/** The lines of a document that a scanned code names: by product number or barcode, as the document shows them. */
export function linesFor(lines, code) {
  return lines.filter((line) => sameCode(line.product_number, code) || sameCode(line.barcode, code));
}

/**
 * The product number of a code that is on none of the lines as shown: another barcode of the
 * product, read from the service (kept on the device once read). Undefined when the service
 * does not know it, or it cannot be asked now.
 */
export async function productNumberOf(ctx, code) {
  try {
    const answer = await ctx.api.get(path('/stores/', ctx.store.store_number, '/products/', code, '/stock'));
    return answer?.products?.[0]?.product_number;
  } catch {
    return undefined;
  }
}

/** The scan field of a document's lines, with a quantity per scan (1 unless a case is scanned). */
export function scanFields() {
  const code = h('input', {
    name: 'code',
    type: 'text',
    maxlength: '64',
    autocomplete: 'off',
    autocapitalize: 'off',
    spellcheck: 'false',
    enterkeyhint: 'done',
    'data-scan-target': true,
  });
  const each = h('input', {
    name: 'each',
    type: 'number',
    inputmode: 'decimal',
    step: 'any',
    min: '0.001',
    value: '1',
  });
  return {
    code,
    each,
    // A code read by the camera is taken at once, like a scanner's Enter.
    elements: [
      field(
        'Barcode or product number',
        scanRow(
          code,
          cameraButton(code, () => code.form?.requestSubmit()),
        ),
      ),
      field('Quantity per scan', each),
    ],
    /** The quantity per scan as typed, or undefined when it is no positive number. */
    quantity() {
      const value = Number(each.value.trim().replace(',', '.'));
      return Number.isFinite(value) && value > 0 ? round(value) : undefined;
    },
  };
}

/**
 * Keeps a document's view current: `load()` reads the document from the service (or its last
 * known answer) and the actions for it still waiting in this device's outbox. Both are read
 * around each other until the outbox did not change in between, so an action sent meanwhile
 * is counted once — in the service's figures or as waiting, never in both or neither.
 */
export function documentState(ctx, { read, isFor }) {
  const waitingFor = async () =>
    (await ctx.outbox.list()).filter((action) => action.state === 'waiting' && isFor(action));
  const keys = (actions) => actions.map((action) => action.id).join(',');
  return async function load() {
    for (let tries = 0; ; tries += 1) {
      const before = await waitingFor();
      const document = await read();
      const waiting = await waitingFor();
      if (keys(before) === keys(waiting) || tries === 3) return { document, waiting };
    }
  };
}
