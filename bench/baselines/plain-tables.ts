/**
 * The tables the raw write baselines fill: one plain table per entity, with an integer
 * primary key and the entity's natural unique key where it has one — no other index, no
 * trigger, no foreign key, no CHECK (ENGINEERING "Measuring"). What the application adds
 * on top of that (its indexes, triggers, version counters, content hashes, audit columns)
 * is the application's cost and shows on its side of the ratio.
 */

export interface PlainTable {
  name: string;
  /** The natural unique key (e.g. store_number); empty when the entity has none (a log entry). */
  naturalKey: readonly string[];
  /** Every other column, untyped (SQLite stores what it is given). */
  columns: readonly string[];
  /** The type of every column on PostgreSQL, for the tables a PostgreSQL baseline fills (it needs types). */
  pgTypes?: Readonly<Record<string, 'text' | 'integer' | 'bigint'>>;
}

const identifier = (name: string) => {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain column name: ${name}`);
  return name;
};

/**
 * The table's DDL: on SQLite untyped columns and the rowid as primary key; on PostgreSQL a
 * bigint identity primary key and each column of its type (`pgTypes`).
 */
export function plainTableDdl(table: PlainTable, dialect: 'sqlite' | 'postgres' = 'sqlite'): string {
  const typed = (column: string) => {
    if (dialect === 'sqlite') return identifier(column);
    const type = table.pgTypes?.[column];
    if (type === undefined) throw new Error(`plain table ${table.name}: no PostgreSQL type for ${column}`);
    return `${identifier(column)} ${type}`;
  };
  const columns = [
    dialect === 'sqlite' ? 'id integer primary key' : 'id bigint generated always as identity primary key',
    ...table.naturalKey.map((column) => `${typed(column)} not null`),
    ...table.columns.map(typed),
  ];
  if (table.naturalKey.length > 0) columns.push(`unique (${table.naturalKey.map(identifier).join(', ')})`);
  return `create table ${identifier(table.name)} (${columns.join(', ')})`;
}

/** Every column a set of JSON records uses besides the natural key, in first-seen order. */
export function columnsOfRecords(
  records: ReadonlyArray<Record<string, unknown>>,
  naturalKey: readonly string[],
): string[] {
  const seen = new Set<string>();
  for (const record of records) for (const key of Object.keys(record)) if (!naturalKey.includes(key)) seen.add(key);
  return [...seen];
}

/**
 * A record's value as a plain column holds it: booleans as 0/1 (SQLite has none), nested
 * arrays and objects as their JSON text, absent as null.
 */
export function columnValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'object') return JSON.stringify(value);
  return value;
}

// ---------------------------------------------------------------- the entities of the scenarios

export const storesTable = (columns: readonly string[]): PlainTable => ({
  name: 'stores',
  naturalKey: ['store_number'],
  columns,
});
export const productsTable = (columns: readonly string[]): PlainTable => ({
  name: 'products',
  naturalKey: ['product_number'],
  columns,
});
/** A barcode identifies one product (or one of its units); the app keeps them for look-ups by barcode. */
export const productBarcodesTable: PlainTable = {
  name: 'product_barcodes',
  naturalKey: ['barcode'],
  columns: ['product_number', 'unit_quantity'],
};

/** A posted stock log entry: no natural key (two identical scans are two entries). */
export const stockEntriesTable: PlainTable = {
  name: 'stock_entries',
  naturalKey: [],
  columns: [
    'store_number',
    'product_number',
    'location_code',
    'pool',
    'reason_code',
    'delta',
    'modification_at',
    'app_user_name',
    'reference',
    'customer_order_line_number',
  ],
  pgTypes: {
    store_number: 'text',
    product_number: 'text',
    location_code: 'text',
    pool: 'integer',
    reason_code: 'integer',
    delta: 'bigint',
    modification_at: 'bigint',
    app_user_name: 'text',
    reference: 'text',
    customer_order_line_number: 'integer',
  },
};

/** A stock level: one per store, product, location ('' when unlocated) and pool. */
export const stockLevelsTable: PlainTable = {
  name: 'stock_levels',
  naturalKey: ['store_number', 'product_number', 'location_code', 'pool'],
  columns: ['quantity', 'last_at'],
  pgTypes: {
    store_number: 'text',
    product_number: 'text',
    location_code: 'text',
    pool: 'integer',
    quantity: 'bigint',
    last_at: 'bigint',
  },
};

/**
 * A delivery order: unique order_number (chain-wide, PRODUCT §7); the store from the path,
 * then one column per header field the orders carry (the lines are rows of their own).
 */
export const deliveryOrdersTable = (columns: readonly string[]): PlainTable => ({
  name: 'delivery_orders',
  naturalKey: ['order_number'],
  columns: ['store_number', ...columns.filter((column) => column !== 'store_number' && column !== 'order_lines')],
});
/** A delivery line: unique (order id, line_number); one column per field the lines carry. */
export const deliveryLinesTable = (columns: readonly string[]): PlainTable => ({
  name: 'delivery_lines',
  naturalKey: ['order_id', 'line_number'],
  columns: columns.filter((column) => column !== 'order_id' && column !== 'line_number'),
});

/**
 * A customer order: unique order_number (chain-wide, PRODUCT §7); the store from the path,
 * then one column per header field the orders carry (the lines are rows of their own).
 */
export const customerOrdersTable = (columns: readonly string[]): PlainTable => ({
  name: 'customer_orders',
  naturalKey: ['order_number'],
  columns: ['store_number', ...columns.filter((column) => column !== 'store_number' && column !== 'lines')],
});
/** A customer order line: unique (order id, line_number); one column per field the lines carry. */
export const customerOrderLinesTable = (columns: readonly string[]): PlainTable => ({
  name: 'customer_order_lines',
  naturalKey: ['order_id', 'line_number'],
  columns: columns.filter((column) => column !== 'order_id' && column !== 'line_number'),
});

/**
 * A product list's header as created (interface §4.1): no natural key (two lists may share a
 * name); the store from the path, then the fields the request carries and the two moments.
 */
export const productListsTable: PlainTable = {
  name: 'product_lists',
  naturalKey: [],
  columns: [
    'store_number',
    'name',
    'type',
    'module_id',
    'app_username',
    'allow_duplicates',
    'free_fields',
    'created_on',
    'updated_on',
  ],
};

/**
 * A product list's line as created: its list's new rowid, its position, the product's id
 * (looked up by product_number in the plain `products` table), thousandths, the pool. No
 * natural key and no other index (issue 14: "a plain table (no secondary indexes)"): the
 * unique (list, position) the service keeps is the service's cost.
 */
export const productListLinesTable: PlainTable = {
  name: 'product_list_lines',
  naturalKey: [],
  columns: ['list_id', 'line_no', 'product_id', 'quantity', 'stock_pool'],
};

/** The fields of a product list line as the service answers them (interface §2.1), in its order. */
export const PRODUCT_LIST_LINE_FIELDS = [
  'quantity',
  'barcode',
  'category_code',
  'colli',
  'is_decimal',
  'parent_category_code',
  'product_name',
  'product_number',
  'stock_pool',
  'store_walking_order',
] as const;

/**
 * The read floor's copy of list lines as the service answered them (servers/product-list-floor.ts):
 * unique (list_id, line_no) — the key it is read by, in list order — then one column per field
 * of the answer, the values as answered (is_decimal 0/1, an absent field null).
 */
export const productListReadLinesTable: PlainTable = {
  name: 'product_list_read_lines',
  naturalKey: ['list_id', 'line_no'],
  columns: [...PRODUCT_LIST_LINE_FIELDS],
};
