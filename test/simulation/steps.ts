import type { Action } from './actions.js';
import type { ChainModel } from './model.js';
import { planDeliveryCreate, planDeliveryResend, planReceiptEntry, planReceive } from './plans/deliveries.js';
import {
  planLocationUpsert,
  planMasterChange,
  planMasterWrite,
  planProductListCreate,
  planProductListDelete,
  planProductListLines,
  planProductListRead,
  planStoreProducts,
} from './plans/master.js';
import { planClear, planOrderCreate, planOrderStatus, planPick, planReject } from './plans/orders.js';
import type { Plan, SequenceContext } from './plans/plan.js';
import {
  planCurrentToken,
  planList,
  planLocationProducts,
  planLocations,
  planOrdersList,
  planRead,
  planReceipts,
  planSurrounding,
  planUnresolved,
} from './plans/reads.js';
import { planExternalCount, planLog, planMove, planReview } from './plans/stock.js';
import { planPriceMove } from './plans/moves.js';
import { planStockPull } from './plans/pull.js';
import { planStockFiltered } from './plans/stock-filters.js';
import { planPhoto } from './plans/photos.js';
import { planAssignCounts, planAssignCreate, planAssignRead, planAssignStep } from './plans/counting.js';

export { API, type Plan, type SequenceContext } from './plans/plan.js';
export { productRecord, REASON_RECORDS, storeRecord } from './plans/records.js';

/**
 * Turns an action into the request a client sends and what the model says must follow
 * (issue 26); the planners of each part of the interface live in plans/. `expect` lists the
 * statuses the rules allow; `commit` changes the model as the accepted request must have
 * changed the service. Undefined: nothing to send (no order or delivery to act on yet).
 */
export function planStep(model: ChainModel, action: Action, context: SequenceContext): Plan | undefined {
  const now = Date.now();
  switch (action.kind) {
    case 'log':
      return planLog(model, action, now, context.orders + 1);
    case 'move':
      return planMove(model, action, now, context.orders + 1);
    case 'review':
      return planReview(model, action, now);
    case 'externalCount':
      return planExternalCount(model, action, now);
    case 'deliveryCreate':
      return planDeliveryCreate(model, action, ++context.deliveries);
    case 'deliveryResend':
      return planDeliveryResend(model, action);
    case 'receive':
      return planReceive(model, action, now);
    case 'receiptEntry':
      return planReceiptEntry(model, action, now);
    case 'orderCreate':
      return planOrderCreate(model, action, ++context.orders);
    case 'pick':
      return planPick(model, action, now);
    case 'clear':
      return planClear(model, action, now);
    case 'reject':
      return planReject(model, action, now);
    case 'orderStatus':
      return planOrderStatus(model, action, now);
    case 'read':
      return planRead(model, action);
    case 'surrounding':
      return planSurrounding(model, action);
    case 'list':
      return planList(model, action);
    case 'locations':
      return planLocations(model, action);
    case 'locationProducts':
      return planLocationProducts(model, action);
    case 'receipts':
      return planReceipts(model, action);
    case 'ordersList':
      return planOrdersList(model, action);
    case 'storeProducts':
      return planStoreProducts(model, action);
    case 'productListCreate':
      return planProductListCreate(model, action);
    case 'productListLines':
      return planProductListLines(model, action);
    case 'productListRead':
      return planProductListRead(model, action);
    case 'productListDelete':
      return planProductListDelete(model, action);
    case 'masterWrite':
      return planMasterWrite(model, action);
    case 'locationUpsert':
      return planLocationUpsert(model, action);
    case 'unresolved':
      return planUnresolved(model, action);
    case 'currentToken':
      return planCurrentToken(model, action);
    case 'priceMove':
      return planPriceMove(model, action);
    case 'stockPull':
      return planStockPull(model, action);
    case 'stockFiltered':
      return planStockFiltered(model, action);
    case 'photo':
      return planPhoto(model, action);
    case 'assignCreate':
      return planAssignCreate(model, action);
    case 'assignStep':
      return planAssignStep(model, action, now);
    case 'assignCounts':
      return planAssignCounts(model, action, now);
    case 'assignRead':
      return planAssignRead(model, action);
    case 'deleteProduct':
    case 'restoreProduct':
    case 'reasonFlush':
    case 'reasonRestore':
    case 'masterRead':
    case 'storeFlush':
    case 'storeRestore':
      return planMasterChange(model, action);
    case 'revoke':
    case 'resend':
    case 'resendTimes':
      return undefined; // the runner does these itself
  }
}
