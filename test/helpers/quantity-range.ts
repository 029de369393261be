import { QuantityRangeError } from '../../src/domain/decimal.js';

/** The kept-sum refusal `run` throws (domain/decimal.ts; the error handler makes it a 422); fails when it throws none. */
export function quantityRangeErrorOf(run: () => unknown): QuantityRangeError {
  try {
    run();
  } catch (error) {
    if (error instanceof QuantityRangeError) return error;
    throw error;
  }
  throw new Error('expected a QuantityRangeError, none was thrown');
}
