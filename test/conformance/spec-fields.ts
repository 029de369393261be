import { splitTopLevel, stripFinalPeriod, takeGroup, type Bullet } from './spec-text.js';

/**
 * The interface's types (§1: number, string, boolean, array of X, object, map) and the
 * field sentences that use them. Every pattern the document uses is understood here; any
 * other sentence throws, so a change to the document can never pass unchecked.
 */

export type SpecType =
  | { kind: 'number' | 'string' | 'boolean' | 'unknown' }
  | { kind: 'array'; items?: SpecType }
  | { kind: 'object'; fields?: SpecField[] }
  | { kind: 'map'; values?: SpecType }
  /** A named resource of §1/§2 (`product list line`, `X` of PagedResponse), resolved later. */
  | { kind: 'ref'; name: string };

export interface SpecField {
  name: string;
  type: SpecType;
  required: boolean;
}

export class SpecParseError extends Error {}

export const fail = (message: string, text: string): never => {
  throw new SpecParseError(`${message}: "${text}"`);
};

const NUMBER = /^(?:numbers?|int32|int64|double|integer)\b/;
const STRING = /^(?:strings?|date-time)\b/;
const BOOLEAN = /^booleans?\b/;
const OBJECT = /^objects?\b/;
/** `one of 1 to 9` (reason_code_type, §4.5). */
const ENUM_RANGE = /^one of -?\d+ to -?\d+\b/;

/** A type at the start of `text` and what follows it (notes), or undefined when `text` starts with prose. */
export function parseTypePrefix(text: string): { type: SpecType; rest: string } | undefined {
  const source = text.trim();
  if (source.startsWith('{')) {
    const { inside, after } = takeGroup(source);
    return { type: { kind: 'object', fields: parseInlineObject(inside) }, rest: after };
  }
  if (source.startsWith('(')) {
    const { inside, after } = takeGroup(source);
    const inner = parseTypePrefix(inside);
    if (!inner || inner.rest.trim() !== '') return undefined;
    return { type: inner.type, rest: after };
  }
  const collection = /^(arrays?|map)\b(?: of (.*))?$/s.exec(source);
  if (collection) {
    const kind = collection[1] === 'map' ? 'map' : 'array';
    const of = collection[2];
    if (of === undefined) return { type: { kind }, rest: source.slice(collection[1]!.length) };
    const element = parseTypePrefix(of) ?? parseReference(of);
    return {
      type: kind === 'map' ? { kind, values: element.type } : { kind, items: element.type },
      rest: element.rest,
    };
  }
  const scalar =
    (NUMBER.exec(source) ?? ENUM_RANGE.exec(source))
      ? ('number' as const)
      : STRING.exec(source)
        ? ('string' as const)
        : BOOLEAN.exec(source)
          ? ('boolean' as const)
          : /^unknown\b/.exec(source)
            ? ('unknown' as const)
            : undefined;
  if (scalar) return { type: { kind: scalar }, rest: source.replace(/^(one of -?\d+ to -?\d+|[\w-]+)/, '') };
  if (OBJECT.exec(source)) return { type: { kind: 'object' }, rest: source.replace(OBJECT, '') };
  if (/^X\b/.exec(source)) return { type: { kind: 'ref', name: 'x' }, rest: source.slice(1) };
  return undefined;
}

/** `product list line`, `store location stock entry (2.5)`: a resource named by its §2 title. */
function parseReference(text: string): { type: SpecType; rest: string } {
  const match = /^([A-Za-z](?:[\w -]*\w)?)(.*)$/s.exec(text.trim());
  if (!match || match[1]!.trim() === '') return fail('not a type or resource name', text);
  return { type: { kind: 'ref', name: match[1]!.trim().toLowerCase() }, rest: match[2]! };
}

export function parseType(text: string): SpecType {
  const parsed = parseTypePrefix(text);
  if (!parsed) return fail('not a type', text);
  return parsed.type;
}

/** `{day*: number (1 = Monday …), time*: string, …}`: every field names its type after a colon. */
function parseInlineObject(inside: string): SpecField[] {
  return splitTopLevel(inside, [',']).flatMap((item) => {
    const parsed = parseItem(item);
    if (!parsed.type) return fail('field of an inline object without a type', item);
    return expand(parsed).map((name) => ({ name, type: parsed.type!, required: parsed.required }));
  });
}

interface Item {
  first: string;
  last?: string;
  required: boolean;
  /** `(optional string)`: optional even in a required group. */
  optional: boolean;
  type?: SpecType;
}

const NAME = String.raw`\x60?([A-Za-z][\w-]*)\x60?`;
const ITEM = new RegExp(String.raw`^${NAME}(\*)?(?:\s+to\s+${NAME})?(\*)?\s*(.*)$`, 's');

/** One field of a list: `name`, `` `name`* ``, `a_1 to a_10`, then `(type; notes)`, `: type` or nothing. */
function parseItem(raw: string): Item {
  const text = stripFinalPeriod(raw);
  const match = ITEM.exec(text);
  if (!match) return fail('cannot parse field', raw);
  const [, first, star1, last, star2, rest] = match;
  const item: Item = { first: first!, last, required: Boolean(star1 ?? star2), optional: false };
  const tail = rest!.trim();
  if (tail === '') return item;
  if (tail.startsWith(':')) {
    item.type = parseType(tail.slice(1));
    return item;
  }
  if (!tail.startsWith('(')) return fail('cannot parse field', raw);
  const { inside, after } = takeGroup(tail);
  let note = inside.trim();
  if (/^optional\b/.test(note) || /[,;]\s*optional$/.test(note)) item.optional = true;
  note = note.replace(/^(optional|all)\s+/, '');
  const typed = parseTypePrefix(splitTopLevel(note, [',', ';'])[0] ?? '');
  if (typed) item.type = typed.type;
  const following = after.trim();
  if (following !== '') {
    // `lines` (array, may be empty) of {…}: the array's items follow the parenthesis.
    const of = /^of (.*)$/s.exec(following);
    if (!of || item.type?.kind !== 'array') return fail('cannot parse field', raw);
    item.type = { kind: 'array', items: parseType(of[1]!) };
  }
  return item;
}

/** `stock_pool_1 to stock_pool_10` → the ten names; `mostlikelypool1 to mostlikelypool10` likewise. */
function expand(item: Pick<Item, 'first' | 'last'>): string[] {
  if (!item.last) return [item.first];
  const from = /^(.*?)(\d+)$/.exec(item.first);
  const to = /^(.*?)(\d+)$/.exec(item.last);
  if (!from || !to || from[1] !== to[1])
    return fail('range of names without a common stem', `${item.first} to ${item.last}`);
  const names: string[] = [];
  for (let n = Number(from[2]); n <= Number(to[2]); n++) names.push(`${from[1]}${n}`);
  return names;
}

export interface FieldDefaults {
  /** Requiredness of fields without `*` and outside a Required/Optional clause. */
  required: boolean;
  /** Type of fields that name none (`Query (all optional strings; …)`). */
  type?: SpecType;
  /** `` `is_submitted` is boolean `` and the like. */
  typeOf?: Record<string, SpecType>;
  /** `all required except code_description`. */
  optionalNames?: string[];
}

const REQUIREDNESS = /^(required|optional)\b:?\s*/i;
const GROUP_TYPE =
  /^(arrays? of (?:strings?|numbers?)|strings?|numbers?|booleans?|arrays?|objects?)(?::\s*|\s+(?=`?[A-Za-z]))/i;
/** `Optional object: counting_lines_remaining_stockpool, with stock_pool_1 to stock_pool_10, each a required number` (§2.8). */
const OBJECT_WITH = /^optional object: (\w+), with (.+), each a required (\w+)$/i;

/**
 * A field sentence: `Required: a, b (string); c (number). Optional strings: d, e`,
 * `required x (number); optional numbers y, z`, `free_fields: array of {…}`, a plain list.
 * Requiredness holds for the rest of its sentence; a group type (`strings`, `booleans`)
 * for its clause. Untyped names take the type of the next typed name in their clause.
 */
export function parseFieldSentence(text: string, defaults: FieldDefaults): SpecField[] {
  const fields: SpecField[] = [];
  for (const sentence of splitTopLevel(stripFinalPeriod(text), ['. '])) {
    const objectWith = OBJECT_WITH.exec(sentence);
    if (objectWith) {
      const inner = parseItem(objectWith[2]!);
      const type = parseType(objectWith[3]!);
      fields.push({
        name: objectWith[1]!,
        required: false,
        type: { kind: 'object', fields: expand(inner).map((name) => ({ name, type, required: true })) },
      });
      continue;
    }
    // `name: type; notes` — one field whose type follows a colon (bullets of §2.7, §4.7, §4.9).
    const named = /^\x60?([A-Za-z][\w-]*)\x60?(\*)?:\s+(.*)$/s.exec(sentence);
    if (named && !REQUIREDNESS.test(sentence) && !GROUP_TYPE.test(sentence)) {
      fields.push({ name: named[1]!, required: Boolean(named[2]) || defaults.required, type: parseType(named[3]!) });
      continue;
    }
    let required = defaults.required;
    for (const clauseText of splitTopLevel(sentence, ['; '])) {
      let clause = clauseText;
      const requiredness = REQUIREDNESS.exec(clause);
      if (requiredness) {
        required = requiredness[1]!.toLowerCase() === 'required';
        clause = clause.slice(requiredness[0].length);
      }
      const group = GROUP_TYPE.exec(clause);
      const groupType = group ? parseType(group[1]!) : undefined;
      if (group) clause = clause.slice(group[0].length);
      fields.push(...parseClause(clause, required, groupType, defaults));
    }
  }
  return fields;
}

function parseClause(
  clause: string,
  required: boolean,
  groupType: SpecType | undefined,
  defaults: FieldDefaults,
): SpecField[] {
  const items = splitTopLevel(clause, [', ', ' and ']).map(parseItem);
  const fields: SpecField[] = [];
  let pending: Item[] = [];
  const emit = (item: Item, type: SpecType) => {
    for (const name of expand(item)) {
      const optional = item.optional || (defaults.optionalNames ?? []).includes(name);
      fields.push({ name, type: defaults.typeOf?.[name] ?? type, required: item.required || (required && !optional) });
    }
  };
  for (const item of items) {
    // In a typed group (`Optional strings: …`) a parenthesis is a note, not a type.
    const type = groupType ?? item.type;
    if (!type) {
      pending.push(item);
      continue;
    }
    for (const untyped of pending) emit(untyped, type);
    pending = [];
    emit(item, type);
  }
  for (const untyped of pending) {
    const type = defaults.typeOf?.[untyped.first] ?? defaults.type;
    if (!type) return fail(`no type for ${untyped.first}`, clause);
    emit(untyped, type);
  }
  return fields;
}

/** `(all optional strings; \`is_submitted\` is boolean)`, `(optional booleans)`, `(all optional)`. */
export function parseListQualifier(inside: string | undefined): Partial<FieldDefaults> {
  if (!inside) return {};
  const defaults: Partial<FieldDefaults> = { typeOf: {} };
  for (const part of inside.split(';').map((p) => p.trim())) {
    const override = /^`(\w+)` is (\w+)$/.exec(part);
    if (override) {
      defaults.typeOf![override[1]!] = parseType(override[2]!);
      continue;
    }
    const qualifier = /^(?:all )?(optional|required)(?: (.+))?$/.exec(part);
    if (!qualifier) {
      // `(field names as written, capitalised)` (§4.13) is a note on spelling.
      if (/^field names as written/.test(part)) continue;
      return fail('cannot parse list qualifier', inside);
    }
    defaults.required = qualifier[1] === 'required';
    if (qualifier[2]) defaults.type = parseType(qualifier[2]);
  }
  return defaults;
}

/** Sentences that describe, not define: read and deliberately skipped. Anything else must parse. */
const PROSE: RegExp[] = [
  /not shown\.?$/,
  // §2.10: the category read shape is decided by PRODUCT §6 and checked as an exception.
  /^Fields of a category record returned by the category list: not shown\./,
  /^Used by all endpoints marked/,
  /^Returned by most write endpoints/,
  /^The products list endpoint uses a different envelope/,
  // Restated as the response of POST …/storeproductlogs in §4.8, which is what is checked.
  /^The store-product-log create endpoint returns an Ack variant/,
  /^`reason_code_type` values \(write side\)/,
];

export const isProse = (text: string) => PROSE.some((pattern) => pattern.test(text));

/** A bullet of a field list (`- Required: …`, `- free_fields: array of {…}`). */
export function bulletFields(bullet: Bullet, defaults: FieldDefaults): SpecField[] {
  if (bullet.children.length > 0) fail('nested bullets in a field list', bullet.text);
  return parseFieldSentence(bullet.text, defaults);
}
