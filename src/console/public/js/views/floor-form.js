// What the floor tasks (count, loss, move) share: the product scanned or typed, the store's
// locations and reason codes, a quantity, and the queueing of the action in the outbox with
// the moment it was scanned (issue 43). A scanner is a keyboard that types and presses
// Enter; each Enter moves to the next field, and the last one queues the action.

import { path } from '../api.js';
import { h } from '../dom.js';
import { quantity as formatQuantity, poolName, POOLS } from '../format.js';
import { searchProducts } from '../stock-data.js';
import { cameraButton } from '../camera.js';
import { scanFeedback } from '../scan-feedback.js';

let fieldCount = 0;
const fieldId = (name) => `${name}-${++fieldCount}`;

/** A labelled field; `control` is the input or select, or a row holding it (scanRow). */
export function field(label, control, hint) {
  const input = control.matches('input, select, textarea') ? control : control.querySelector('input');
  input.id ||= fieldId(input.name || 'field');
  return h('div', { class: 'field' }, h('label', { for: input.id }, label), control, hint ?? null);
}

/** A scan input with the Camera button beside it, where the browser can read codes (camera.js). */
export function scanRow(input, camera) {
  return camera ? h('div', { class: 'scan-row' }, input, camera) : input;
}

/** The scan field: a barcode or product number, looked up as soon as it is entered. */
export function productField(ctx) {
  const input = h('input', {
    name: 'code',
    type: 'text',
    required: true,
    maxlength: '64',
    autocomplete: 'off',
    autocapitalize: 'off',
    spellcheck: 'false',
    enterkeyhint: 'next',
    inputmode: 'text',
    'data-scan-target': true,
  });
  const found = h('p', { class: 'field-hint product-found', 'aria-live': 'polite' });
  let product = null;
  let looking;

  const stockOf = (code) =>
    ctx.api.get(path('/stores/', ctx.store.store_number, '/products/', code, '/stock'), { include_locations: true });

  /** A code that is no number or barcode may be a name ("milk"): one match is taken, several are named. */
  async function byName(code) {
    const matching = await searchProducts(ctx.api, ctx.store.store_number, code, 5);
    if (matching.products.length === 1) return stockOf(matching.products[0].productNumber);
    const names = matching.products.map((one) => `${one.name} (${one.productNumber})`).join(', ');
    throw new Error(
      matching.total === 0
        ? `No product ${code} in this store.`
        : `${matching.total} products match “${code}”: ${names}${matching.total > matching.products.length ? ', …' : ''}. Scan or type one.`,
    );
  }

  async function lookUp() {
    const code = input.value.trim();
    product = null;
    input.removeAttribute('aria-invalid');
    if (code === '') return null;
    found.textContent = `Looking up ${code}…`;
    try {
      const answer = await stockOf(code).catch((failure) => {
        if (failure.kind === 'not-found') return byName(code);
        throw failure;
      });
      const line = answer?.products?.[0];
      product = {
        code,
        productNumber: line?.product_number ?? code,
        stock: line?.most_likely_stock ?? 0,
        locations: (line?.store_locations ?? []).map((l) => ({ code: l.store_location_code, quantity: l.quantity })),
        known: true,
      };
      const where = product.locations.map((l) => `${l.code ?? 'unlocated'} ${formatQuantity(l.quantity)}`).join(', ');
      found.textContent = `Product ${product.productNumber}: ${formatQuantity(product.stock)} in stock${where ? ` (${where})` : ''}.`;
      scanFeedback(input, true);
    } catch (failure) {
      if (failure.kind === 'network') {
        // Never looked up on this device: queued as a product number; a barcode the service
        // does not know as one is refused when it arrives, and the Outbox says so.
        product = { code, productNumber: code, known: false };
        found.textContent = `Offline: ${code} is not known on this device yet; it is sent as a product number.`;
      } else {
        scanFeedback(input, false);
        found.textContent =
          failure.kind === 'not-found' ? `No product ${code} in this store.` : (failure.sentence ?? failure.message);
      }
    }
    return product;
  }

  input.addEventListener('change', () => {
    looking = lookUp();
  });
  // A code read by the camera goes on like a scanner's: its Enter looks it up and moves on.
  const camera = cameraButton(input, () =>
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })),
  );
  return {
    element: field('Barcode, product number or name', scanRow(input, camera), found),
    input,
    /** The product for the code in the field, looked up if it was not yet. */
    async product() {
      if (looking) await looking;
      if (!product || product.code !== input.value.trim()) product = await lookUp();
      return product;
    },
    reset() {
      input.value = '';
      product = null;
      looking = undefined;
      found.textContent = '';
    },
  };
}

/** The store's locations, for a select; read once per view (and kept on the device for offline use). */
export async function loadLocations(ctx) {
  const page = await ctx.api.get(path('/stores/', ctx.store.store_number, '/locations'), { page_size: 1000 });
  return (page?.list ?? []).map((location) => location.location_code).sort();
}

/** The reason codes of the given types that apply to the store (no store type, or the store's). */
export async function loadReasonCodes(ctx, types, { lossOnly = false } = {}) {
  const codes = await ctx.api.get('/reasoncodes');
  const storeType = ctx.store.store_type_code;
  return (codes ?? []).filter(
    (code) =>
      types.includes(code.reason_code_type) &&
      (!lossOnly || code.is_loss) &&
      (!code.store_type || code.store_type === storeType),
  );
}

export function locationSelect(name, locations, { none = 'No location (unlocated)' } = {}) {
  return h('select', { name }, locationOptions(locations, none));
}

/** The options of a location select, the first ("none") chosen: for a select drawn before the locations are read. */
export function locationOptions(locations, none = 'No location (unlocated)') {
  return [h('option', { value: '' }, none), ...locations.map((code) => h('option', { value: code }, code))];
}

export function reasonSelect(name, codes, { required = false } = {}) {
  return h(
    'select',
    { name, required },
    required ? null : h('option', { value: '' }, 'None'),
    codes.map((code) =>
      h(
        'option',
        {
          value: String(code.code),
          'data-comment-required': code.is_comment_mandatory,
          'data-image-required': code.is_image_mandatory,
        },
        `${code.code} ${code.description ?? ''}`.trim(),
      ),
    ),
  );
}

export function poolSelect(name, store) {
  return h(
    'select',
    { name },
    h('option', { value: '' }, "The location's default pool"),
    POOLS.map((pool) => h('option', { value: String(pool) }, poolName(store, pool))),
  );
}

export function quantityInput(name, { min = '0' } = {}) {
  return h('input', {
    name,
    type: 'number',
    inputmode: 'decimal',
    step: 'any',
    min,
    required: true,
    enterkeyhint: 'done',
  });
}

/** A quantity as typed, or undefined when it is not a number within the rules (PRODUCT §3: 3 decimals). */
export function readQuantity(input, { positive = false } = {}) {
  const text = input.value.trim().replace(',', '.');
  const value = Number(text);
  if (text === '' || !Number.isFinite(value) || (positive ? value <= 0 : value < 0)) return undefined;
  return Math.round(value * 1000) / 1000;
}

/** Enter in one field goes to the next (a scanner's Enter), and submits from the last. */
export function enterMovesOn(form) {
  form.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.target.tagName === 'BUTTON') return;
    const fields = [...form.querySelectorAll('input, select, textarea')].filter((element) => !element.disabled);
    const index = fields.indexOf(event.target);
    if (index < 0 || index === fields.length - 1 || event.target.tagName === 'TEXTAREA') return;
    event.preventDefault();
    event.target.dispatchEvent(new Event('change', { bubbles: true }));
    fields[index + 1].focus();
  });
}

/** The moment of a scan as the ledger takes it (PRODUCT §5): now, to the millisecond, in UTC. */
export const scannedNow = () => new Date().toISOString();

/** The stock-log post of one entry, as the outbox sends it. */
export function stockLogAction(ctx, { kind, label, entry, counted = false, query }) {
  const scannedAt = scannedNow();
  return {
    store: ctx.store.store_number,
    kind,
    label,
    method: 'POST',
    route: path('/stores/', ctx.store.store_number, '/products/stock/storeproductlogs'),
    query: counted ? { is_counted_quantity: true } : query,
    body: {
      storeproductlog: [
        {
          customer_order_line_number: 0,
          modification_datetime: scannedAt,
          scanned_datetime: scannedAt,
          app_user_name: ctx.me.name,
          source: 'store console',
          ...entry,
        },
      ],
    },
    scannedAt,
    by: ctx.me.name,
  };
}
