// A loss or damage (PRODUCT §5): a reason code that subtracts, a remark, a photo if taken,
// booked at the moment it was scanned.

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
import { photoField, photoPath, photoUploadAction } from '../photo.js';

export const title = 'Loss';
/** Loss (1) and gain/loss (7) codes whose entries subtract (is_loss). */
const LOSS_REASON_TYPES = [1, 7];

export function render(ctx) {
  let product;
  let location;
  let lost;
  let reason;
  let remark;
  let photo;
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
      photo = photoField();
      return {
        fields: [
          product.element,
          field('Location', location),
          field('Quantity lost', lost),
          field('Reason', reason),
          field('Remark', remark),
          field('Photo (optional)', photo.input, photo.elements.slice(1)),
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
      if (photo.busy())
        return { problem: 'The photo is still being prepared: book again in a moment.', problemField: photo.input };
      const taken = photo.current();
      // The reason code says whether a photo is required (is_image_mandatory, interface §2.6).
      if (!taken && reason.selectedOptions[0]?.hasAttribute('data-image-required'))
        return { problem: 'This reason needs a photo: take one of the damage.', problemField: photo.input };
      const label = `loss ${found.productNumber}${where ? ` at ${where}` : ''}: ${quantity(amount)} (${reason.selectedOptions[0]?.textContent})`;
      return {
        // The photo goes first: the entry names it, and an outbox sends in order.
        before: taken ? [photoUploadAction(ctx, taken, `photo of the ${label}`)] : [],
        reset: () => photo.reset(),
        action: stockLogAction(ctx, {
          kind: 'loss',
          label: taken ? `${label}, with a photo` : label,
          entry: {
            product_number: found.productNumber,
            quantity: -amount,
            location_code: where,
            reason_code: Number(reason.value),
            loss_comment: text || undefined,
            loss_image: taken ? photoPath(ctx.store.store_number, taken.sha256) : undefined,
          },
        }),
      };
    },
  });
}
