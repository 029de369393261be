// Count a product at a location (PRODUCT §5): the counted level, booked at the moment it was
// scanned, so every sale after that moment stays on top of it.

import { quantity } from '../format.js';
import {
  field,
  loadLocations,
  loadReasonCodes,
  locationSelect,
  productField,
  quantityInput,
  readQuantity,
  reasonSelect,
  stockLogAction,
} from './floor-form.js';
import { floorTaskView } from './floor-task.js';

export const title = 'Count';
const COUNT_REASON_TYPES = [6];

export function render(ctx) {
  let product;
  let location;
  let counted;
  let reason;
  return floorTaskView(ctx, {
    heading: `Count in ${ctx.storeLabel}`,
    intro: 'Scan the product, choose where it stands, type how many you counted. Works without Wi-Fi.',
    submitLabel: 'Book count',
    async build() {
      const [locations, reasons] = await Promise.all([loadLocations(ctx), loadReasonCodes(ctx, COUNT_REASON_TYPES)]);
      product = productField(ctx);
      location = locationSelect('location', locations);
      counted = quantityInput('counted');
      reason = reasonSelect('reason', reasons);
      return {
        fields: [
          product.element,
          field('Location', location),
          field('Counted quantity', counted),
          reasons.length > 0 ? field('Reason code', reason) : null,
        ],
        product,
        focus: product.input,
      };
    },
    action(found) {
      const level = readQuantity(counted);
      if (level === undefined) return { problem: 'Type the counted quantity (0 or more).', problemField: counted };
      const where = location.value || undefined;
      return {
        action: stockLogAction(ctx, {
          kind: 'count',
          counted: true,
          label: `count ${found.productNumber}${where ? ` at ${where}` : ''}: ${quantity(level)}`,
          entry: {
            product_number: found.productNumber,
            quantity: level,
            location_code: where,
            reason_code: reason.value ? Number(reason.value) : undefined,
          },
        }),
      };
    },
  });
}
