// The console's own database on the device (IndexedDB): the outbox of actions not yet
// sent and the last known answers of reads. Kept across reloads and closed tabs; emptied
// when the user signs out (session.forget). IndexedDB's API is events; these helpers make
// each use one promise, and nothing else in the console touches IndexedDB directly.

const NAME = 'store-console';
// 2: the reads gained an index by the moment they were known, to prune the oldest.
const VERSION = 2;
export const OUTBOX = 'outbox';
export const READS = 'reads';

let opening;

function open() {
  opening ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(NAME, VERSION);
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains(OUTBOX)) db.createObjectStore(OUTBOX, { keyPath: 'id', autoIncrement: true });
      const reads = db.objectStoreNames.contains(READS)
        ? request.transaction.objectStore(READS)
        : db.createObjectStore(READS, { keyPath: 'url' });
      if (!reads.indexNames.contains('at')) reads.createIndex('at', 'at');
    };
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => {
      opening = undefined;
      reject(request.error);
    };
  });
  return opening;
}

const done = (request) =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });

/**
 * One transaction on one object store: `work(store)` issues requests and returns the one
 * whose result is wanted; the promise settles when the transaction has committed, so a
 * resolved write is on the device.
 */
export async function inStore(name, mode, work, durability = 'strict') {
  const db = await open();
  return new Promise((resolve, reject) => {
    const transaction = db.transaction(name, mode, { durability });
    const request = work(transaction.objectStore(name));
    let result;
    if (request) done(request).then((value) => (result = value), reject);
    transaction.oncomplete = () => resolve(result);
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error);
  });
}

export const getAll = (name) => inStore(name, 'readonly', (store) => store.getAll());
export const get = (name, key) => inStore(name, 'readonly', (store) => store.get(key));
export const put = (name, value) => inStore(name, 'readwrite', (store) => store.put(value));
/**
 * A write that may be lost in a crash of the device (not of the tab): for marks that are
 * safe to redo, such as "sent" — an action sent again carries its key and is replayed.
 */
export const putRelaxed = (name, value) => inStore(name, 'readwrite', (store) => store.put(value), 'relaxed');

/** The first value in key order after the key `after` (if given) that `accept` takes, read by cursor. */
export async function first(name, accept, after) {
  const db = await open();
  return new Promise((resolve, reject) => {
    const range = after === undefined ? undefined : IDBKeyRange.lowerBound(after, true);
    const request = db.transaction(name, 'readonly').objectStore(name).openCursor(range);
    request.onerror = () => reject(request.error);
    request.onsuccess = () => {
      const cursor = request.result;
      if (!cursor) return resolve(undefined);
      if (accept(cursor.value)) return resolve(cursor.value);
      cursor.continue();
    };
  });
}
export const remove = (name, key) => inStore(name, 'readwrite', (store) => store.delete(key));
export const clear = (name) => inStore(name, 'readwrite', (store) => store.clear());

/**
 * Keeps the newest `limit` values of a store by their `at` index and deletes the rest,
 * oldest first: the reads are kept by address, so they grow with every product looked up.
 */
export const keepNewest = (name, limit) =>
  inStore(name, 'readwrite', (store) => {
    const counting = store.count();
    counting.onsuccess = () => {
      let excess = counting.result - limit;
      if (excess <= 0) return;
      const cursor = store.index('at').openCursor();
      cursor.onsuccess = () => {
        if (!cursor.result || excess-- <= 0) return;
        cursor.result.delete();
        cursor.result.continue();
      };
    };
  });
