import type { LedgerPolicies } from './ledger/ledger.js';
import { ORDER_SOURCES, orderNumberErrors } from './modules/customer-orders/bound-stock.js';
import { finishReceiving, planReceiving, type ReceivingPlan } from './modules/deliveries/receiving.js';
import { findLocationsByCodes } from './modules/locations/repository.js';
import {
  findBookingProducts,
  findBookingProductsByIds,
  findProductsByBarcodes,
} from './modules/products/repository.js';
import { findReasonCodes } from './modules/reason-codes/repository.js';
import { newStoreProductRow } from './modules/store-products/repository.js';
import { findStoreKeepingBooks, requireLiveStore } from './modules/stores/repository.js';

/**
 * What the modules lend the stock kernel, wired in this one place (ENGINEERING.md "Layout":
 * the ledger imports no module; its guards, look-ups and effects come in through its
 * interfaces, ledger/ledger.ts). Above every module, so the modules and the context type they
 * import stay free of each other.
 */
export const LEDGER_POLICIES: LedgerPolicies = {
  newStoreProduct: newStoreProductRow,
  lookups: {
    liveStore: (db, storeNumber) => requireLiveStore(db, storeNumber),
    storeKeepingBooks: findStoreKeepingBooks,
    productsByNumber: findBookingProducts,
    productsById: findBookingProductsByIds,
    productsByBarcode: findProductsByBarcodes,
    reasonCodes: findReasonCodes,
    locations: findLocationsByCodes,
  },
  orderBinding: { refusals: orderNumberErrors, reservedSources: ORDER_SOURCES },
  receiving: {
    plan: planReceiving,
    // A receipt entry on the stock log path never submits its delivery: the receive endpoint does.
    finish: (trx, ledger, plan, drafts, booked, by, now) =>
      finishReceiving(trx, ledger, plan as ReceivingPlan, drafts, booked, [], by, now),
  },
};
