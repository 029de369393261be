// Move stock between locations and pools (interface §4.11). A move is booked at the moment
// the service receives it (the movement API carries no moment of its own): queued offline,
// it lands when it is sent, and a move that would overdraw its source then is refused and
// shown in the Outbox (docs/decisions.md "The handheld offline").

import { path } from '../api.js';
import { quantity } from '../format.js';
import {
  field,
  loadLocations,
  locationSelect,
  poolSelect,
  productField,
  quantityInput,
  readQuantity,
  scannedNow,
} from './floor-form.js';
import { floorTaskView } from './floor-task.js';

export const title = 'Move';

export function render(ctx) {
  let product;
  let from;
  let fromPool;
  let to;
  let toPool;
  let amount;
  return floorTaskView(ctx, {
    heading: `Move stock in ${ctx.storeLabel}`,
    intro: 'Scan the product, choose where it comes from and where it goes. Works without Wi-Fi.',
    submitLabel: 'Book move',
    async build() {
      const locations = await loadLocations(ctx);
      product = productField(ctx);
      from = locationSelect('from', locations);
      fromPool = poolSelect('from-pool', ctx.store);
      to = locationSelect('to', locations);
      toPool = poolSelect('to-pool', ctx.store);
      amount = quantityInput('quantity', { min: '0.001' });
      return {
        fields: [
          product.element,
          field('From location', from),
          field('From pool', fromPool),
          field('To location', to),
          field('To pool', toPool),
          field('Quantity', amount),
        ],
        product,
        focus: product.input,
      };
    },
    action(found) {
      const moved = readQuantity(amount, { positive: true });
      if (moved === undefined) return { problem: 'Type how many move (more than 0).', problemField: amount };
      if (from.value === to.value && fromPool.value === toPool.value)
        return { problem: 'Choose a different location or pool to move to.', problemField: to };
      const side = (location, pool) => ({
        location_code: location.value || undefined,
        stock_pool: pool.value ? Number(pool.value) : undefined,
      });
      const store = ctx.store.store_number;
      return {
        action: {
          store,
          kind: 'move',
          label: `move ${quantity(moved)} × ${found.productNumber} from ${from.value || 'unlocated'} to ${to.value || 'unlocated'}`,
          method: 'POST',
          route: path('/stores/', store, '/storeproductlocation/movement'),
          query: { AppUserName: ctx.me.name },
          body: {
            body: [
              {
                quantity: moved,
                product_number: found.productNumber,
                source: 'store console',
                from_location: side(from, fromPool),
                to_location: side(to, toPool),
              },
            ],
          },
          scannedAt: scannedNow(),
          by: ctx.me.name,
        },
      };
    },
  });
}
