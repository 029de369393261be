import { KindGuard, Type, type Static, type TOptional, type TSchema } from '@sinclair/typebox';

/**
 * One declaration per field of a resource (ENGINEERING.md "one schema, many uses"): what a
 * request sends (`input`, a TypeBox schema), the column the request's value is stored in and
 * how (`column`, `write`), and what a read shows and where it comes from (`output`, `read`).
 * The request's and the read's TypeBox properties, the stored record's type and both mappings
 * follow from the declarations, so a field is named once; the module checks the record's type
 * against its Kysely table (`ColumnsAgree`), which db/ cannot import.
 *
 * The mappings are functions generated once per declaration list, as `column-access.ts` does
 * for column values: a 20,000-line import maps every line, and a generated function names each
 * property in its source instead of probing a name known only at run time.
 */
export interface Field<Write, ReadRow, ReadContext> {
  input: TSchema | undefined;
  column: string | undefined;
  write: ((sent: never, context: Write) => unknown) | undefined;
  output: TSchema | undefined;
  read: ((row: ReadRow, context: ReadContext) => unknown) | undefined;
}

/** What a request carries for a property: undefined when the schema lets it be left out. */
type Sent<I> = I extends TOptional<infer S> ? Static<S> | undefined : I extends TSchema ? Static<I> : undefined;

/**
 * The declaration helper of one resource: `Write` is what the mapping knows besides the
 * request (resolved ids, a computed count, a default moment), `ReadRow` what a read maps from.
 * A declaration names `column` and `write` together, and `output` and `read` together.
 */
export function fieldsOf<Write, ReadRow, ReadContext = undefined>() {
  return <
    const I extends TSchema | undefined = undefined,
    const C extends string | undefined = undefined,
    W = undefined,
    const O extends TSchema | undefined = undefined,
  >(declaration: {
    input?: I;
    column?: C;
    write?: (sent: Sent<I>, context: Write) => W;
    output?: O;
    read?: (row: ReadRow, context: ReadContext) => Sent<O>;
  }) =>
    ({
      input: declaration.input,
      column: declaration.column,
      write: declaration.write,
      output: declaration.output,
      read: declaration.read,
    }) as {
      input: I;
      column: C;
      write: C extends string ? (sent: Sent<I>, context: Write) => W : undefined;
      output: O;
      read: O extends TSchema ? (row: ReadRow, context: ReadContext) => Sent<O> : undefined;
    };
}

type Fields = Record<string, Field<any, any, any>>;

type InputsOf<F extends Fields> = {
  [K in keyof F as F[K]['input'] extends TSchema ? K : never]: F[K]['input'];
};

/**
 * The request's properties, in declaration order. `omit` leaves out those a path does not take;
 * `optional` makes those optional that a path lets be left out.
 */
export function inputProperties<
  F extends Fields,
  const Omitted extends keyof InputsOf<F> = never,
  const Opt extends keyof InputsOf<F> = never,
>(
  fields: F,
  options: { omit?: readonly Omitted[]; optional?: readonly Opt[] } = {},
): {
  [K in Exclude<keyof InputsOf<F>, Omitted>]: K extends Opt ? TOptional<InputsOf<F>[K] & TSchema> : InputsOf<F>[K];
} {
  const omitted = new Set<PropertyKey>(options.omit ?? []);
  const optional = new Set<PropertyKey>(options.optional ?? []);
  const properties: Record<string, TSchema> = {};
  for (const [name, field] of Object.entries(fields)) {
    if (field.input === undefined || omitted.has(name)) continue;
    properties[name] = optional.has(name) ? Type.Optional(field.input) : field.input;
  }
  return properties as never;
}

type OutputsOf<F extends Fields> = {
  [K in keyof F as F[K]['output'] extends TSchema ? K : never]: F[K]['output'];
};

/**
 * The read's properties in the interface's order (§2: required ones, then optional ones, each
 * alphabetically): the serializer writes an answer's fields in this order.
 */
export function outputProperties<F extends Fields>(fields: F): OutputsOf<F> {
  return Object.fromEntries(outputOrder(fields).map((name) => [name, fields[name]!.output!])) as OutputsOf<F>;
}

function outputOrder(fields: Fields): string[] {
  const names = Object.keys(fields).filter((name) => fields[name]!.output !== undefined);
  const required = names.filter((name) => !KindGuard.IsOptional(fields[name]!.output!)).sort();
  const optional = names.filter((name) => KindGuard.IsOptional(fields[name]!.output!)).sort();
  return [...required, ...optional];
}

/** The stored record: each declared column, of the type its `write` gives. */
export type RecordOf<F extends Fields> = {
  [K in keyof F as F[K]['column'] extends string ? F[K]['column'] : never]: F[K]['write'] extends (
    ...args: never[]
  ) => infer W
    ? W
    : never;
};

/** true when the record's columns are columns of `Row` of exactly the same types. */
export type ColumnsAgree<R, Row> = [keyof R] extends [keyof Row]
  ? [R] extends [Pick<Row, keyof R & keyof Row>]
    ? [Pick<Row, keyof R & keyof Row>] extends [R]
      ? true
      : false
    : false
  : false;

const safeName = (name: string) => {
  if (name === '__proto__') throw new Error('__proto__ cannot be a field or column name');
  return JSON.stringify(name);
};

/**
 * `(request, context) => record`: each declared column from its field's value, in the order
 * of `columns` (the table's, db/schema.ts): a record's key order is its content hash's.
 */
export function recordWriter<F extends Fields, Write>(
  fields: F,
  columns: readonly string[],
): (sent: object, context: Write) => RecordOf<F> {
  const byColumn = new Map(
    Object.entries(fields).flatMap(([name, field]) =>
      field.column === undefined ? [] : [[field.column, { name, write: field.write! }] as const],
    ),
  );
  const missing = [...byColumn.keys()].filter((column) => !columns.includes(column));
  if (missing.length > 0) throw new Error(`declared columns missing from the table's list: ${missing.join(', ')}`);
  const ordered = columns.flatMap((column) => {
    const field = byColumn.get(column);
    return field === undefined ? [] : [{ column, ...field }];
  });
  const body = ordered
    .map(({ column, name }, index) => `${safeName(column)}: writes[${index}](sent[${safeName(name)}], context)`)
    .join(', ');
  return new Function('writes', `return (sent, context) => ({ ${body} });`)(ordered.map((field) => field.write));
}

/** `(row, context) => read`: each output field from its `read`, in the read's order. */
export function reader<F extends Fields, ReadRow, ReadContext, Out>(
  fields: F,
): (row: ReadRow, context: ReadContext) => Out {
  const names = outputOrder(fields);
  const body = names.map((name, index) => `${safeName(name)}: reads[${index}](row, context)`).join(', ');
  return new Function('reads', `return (row, context) => ({ ${body} });`)(names.map((name) => fields[name]!.read));
}
