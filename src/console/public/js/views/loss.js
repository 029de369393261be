// A loss or damage (PRODUCT §5): a reason code that subtracts, a remark, booked at the moment
// it was scanned.

import { h } from '../dom.js';
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

export const title = 'Loss';
/** Loss (1) and gain/loss (7) codes whose entries subtract (is_loss). */
const LOSS_REASON_TYPES = [1, 7];

export function render(ctx) {
  let product;
  let location;
  let lost;
  let reason;
  let remark;
  return floorTaskView(ctx, {
    heading: `Loss or damage in ${ctx.storeLabel}`,
    intro: 'Scan the product, say how many are lost or damaged and why. Works without Wi-Fi.',
    submitLabel: 'Book loss',
    async build() {
      const [locations, reasons] = await Promise.all([
        loadLocations(ctx),
        loadReasonCodes(ctx, LOSS_REASON_TYPES, { lossOnly: true }),
      ]);
      if (reasons.length === 0) throw new Error('This store has no loss reason codes. Ask the ERP team to send them.');
      product = productField(ctx);
      location = locationSelect('location', locations);
      lost = quantityInput('lost', { min: '0.001' });
      reason = reasonSelect('reason', reasons, { required: true });
      remark = h('textarea', { name: 'remark', maxlength: '2000', rows: '2' });
      return {
        fields: [
          product.element,
          field('Location', location),
          field('Quantity lost', lost),
          field('Reason', reason),
          field('Remark', remark),
        ],
        product,
        focus: product.input,
      };
    },
    action(found) {
      const amount = readQuantity(lost, { positive: true });
      if (amount === undefined) return { problem: 'Type how many are lost (more than 0).', problemField: lost };
      const where = location.value || undefined;
      const text = remark.value.trim();
      // The reason code says whether a remark is required (is_comment_mandatory, interface §2.6).
      if (!text && reason.selectedOptions[0]?.hasAttribute('data-comment-required'))
        return { problem: 'This reason needs a remark: say what happened.', problemField: remark };
      return {
        action: stockLogAction(ctx, {
          kind: 'loss',
          label: `loss ${found.productNumber}${where ? ` at ${where}` : ''}: ${quantity(amount)} (${reason.selectedOptions[0]?.textContent})`,
          entry: {
            product_number: found.productNumber,
            quantity: -amount,
            location_code: where,
            reason_code: Number(reason.value),
            loss_comment: text || undefined,
          },
        }),
      };
    },
  });
}
