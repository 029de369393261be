import { readFileSync } from 'node:fs';
import { readEndpoints, type SpecEndpoint } from './spec-endpoints.js';
import {
  bulletFields,
  fail,
  isProse,
  parseFieldSentence,
  parseType,
  type FieldDefaults,
  type SpecField,
  type SpecType,
} from './spec-fields.js';
import { readSections, type Block, type Section } from './spec-text.js';

export type { SpecEndpoint };

/**
 * Reads the interface document (`../shared/spec/store-operations-interface.md`): the
 * envelopes of §1.1/§1.2, the resources of §2 and the endpoints of §4, into plain field
 * lists. What it cannot read it refuses (SpecParseError), naming the sentence.
 */

export interface SpecDocument {
  resources: Map<string, SpecField[]>;
  endpoints: SpecEndpoint[];
  /** §8: fields with a length limit (`reason_code_description` at most 250 characters). */
  maxLengths: { field: string; maxLength: number }[];
}

/**
 * Arrays a §2 resource lists without an item type, whose items the same section describes
 * under another title (`order_lines (array)` … "Delivery order line (read)").
 */
const ITEM_RESOURCES: Record<string, Record<string, string>> = {
  'delivery order': { order_lines: 'delivery order line' },
  'receipt order': { receipt_lines: 'receipt line' },
  'customer order': { lines: 'customer order line' },
  'customer order line': { store_locations: 'customer order line store location' },
};

/** Lead-ins whose block is a resource referred to by another name. */
const RESOURCE_ALIASES: Record<string, string> = {
  'envelope returned by the product list endpoint': 'product envelope',
};

export function readSpec(file: string): SpecDocument {
  return parseSpec(readFileSync(file, 'utf8'));
}

export function parseSpec(markdown: string): SpecDocument {
  const resources = new Map<string, SpecField[]>();
  const endpoints: SpecEndpoint[] = [];
  const maxLengths: SpecDocument['maxLengths'] = [];
  for (const section of readSections(markdown)) {
    try {
      if (section.number === '1.1' || section.number === '1.2' || /^2\.\d+$/.test(section.number))
        readResources(section, resources);
      else if (/^4\.\d+$/.test(section.number)) endpoints.push(...readEndpoints(section, endpoints));
      else if (section.number === '8') maxLengths.push(...readLimits(section));
    } catch (error) {
      throw new Error(`interface §${section.number}: ${(error as Error).message}`, { cause: error });
    }
  }
  for (const [owner, links] of Object.entries(ITEM_RESOURCES)) {
    if (!resources.has(owner)) continue; // a document without that resource (unit tests)
    for (const [field, itemName] of Object.entries(links)) {
      const target = resources.get(owner)?.find((f) => f.name === field);
      if (!target || target.type.kind !== 'array' || target.type.items)
        fail('item link names no item-less array', `${owner}.${field}`);
      target!.type = { kind: 'array', items: { kind: 'ref', name: itemName } };
    }
  }
  return { resources, endpoints: endpoints.map((endpoint) => resolveEndpoint(endpoint, resources)), maxLengths };
}

/**
 * §8 Limits: `at most N characters` rows are length limits; the character rule of
 * product_list_name belongs to a pending endpoint and the ten pools are the _1…_10 fields
 * themselves, both read and set aside. Any other row fails.
 */
const OTHER_LIMITS = [
  /^product_list_name \| only letters, digits, spaces, dots, hyphens, underscores$/,
  /^ten stock pools per store \| pools 1 to 10$/,
];

function readLimits(section: Section): SpecDocument['maxLengths'] {
  const limits: SpecDocument['maxLengths'] = [];
  for (const block of section.blocks) {
    if (block.kind !== 'table') {
      if (block.kind === 'paragraph' && isProse(block.text)) continue;
      return fail('cannot parse', block.kind === 'paragraph' ? block.text : block.items[0]!.text);
    }
    const [header, ...rows] = block.rows;
    if (header?.join(' | ') !== 'Limit | Value') fail('unexpected table', header?.join(' | ') ?? '');
    for (const [limit, value] of rows) {
      const length = /^at most (\d+) characters$/.exec(value ?? '');
      const field = /^(\w+)(?: \([^)]*\))?$/.exec(limit ?? '');
      if (length && field) limits.push({ field: field[1]!, maxLength: Number(length[1]) });
      else if (!OTHER_LIMITS.some((rule) => rule.test(`${limit} | ${value}`)))
        fail('cannot parse limit', `${limit} | ${value}`);
    }
  }
  return limits;
}

// ---------------------------------------------------------------- §1.1, §1.2, §2

function resourceName(title: string): string {
  const plain = title
    .replace(/^Shared envelope: /, '')
    .replace(/\s*\([^)]*\)/g, '')
    .trim()
    .toLowerCase();
  return RESOURCE_ALIASES[plain] ?? plain;
}

function addFields(resources: Map<string, SpecField[]>, name: string, fields: SpecField[]) {
  resources.set(name, [...(resources.get(name) ?? []), ...fields]);
}

const LEAD = /^(.+?)(?: \(([^)]*)\))?(?: (required|optional))?:(?: (.*))?$/s;

function readResources(section: Section, resources: Map<string, SpecField[]>) {
  const headingResource = resourceName(section.title);
  let leadIn: { name: string; defaults: FieldDefaults } | undefined;
  for (const block of section.blocks) {
    if (block.kind === 'paragraph') {
      const text = block.text;
      if (isProse(text)) continue;
      if (/^(required|optional)\b/i.test(text)) {
        const arraysLead = /^Optional arrays:$/.exec(text);
        if (arraysLead) leadIn = { name: headingResource, defaults: { required: false } };
        else addFields(resources, headingResource, parseFieldSentence(text, { required: false }));
        continue;
      }
      const lead = LEAD.exec(text);
      if (!lead) fail('cannot parse', text);
      const [, title, qualifier, word] = lead!;
      const rest = lead![4];
      const name = resourceName(title!);
      const defaults: FieldDefaults = { required: word === 'required' };
      if (qualifier && /\ball optional\b/.test(qualifier)) defaults.required = false;
      if (rest) addFields(resources, name, parseFieldSentence(rest, defaults));
      else leadIn = { name, defaults };
      continue;
    }
    const target = leadIn ?? { name: headingResource, defaults: { required: false } };
    leadIn = undefined;
    if (block.kind === 'table') addFields(resources, target.name, readFieldTable(block));
    else
      addFields(
        resources,
        target.name,
        block.items.flatMap((bullet) => bulletFields(bullet, target.defaults)),
      );
  }
}

function readFieldTable(table: Extract<Block, { kind: 'table' }>): SpecField[] {
  const [header, ...rows] = table.rows;
  if (header?.[0] !== 'Field' || header[1] !== 'Type')
    fail('table without Field | Type columns', header?.join(' | ') ?? '');
  return rows.map(([field, type]) => {
    const match = /^([A-Za-z_]\w*)(\*)?$/.exec(field ?? '');
    if (!match) return fail('cannot parse table field', field ?? '');
    return { name: match[1]!, required: Boolean(match[2]), type: parseType(type ?? '') };
  });
}

// ---------------------------------------------------------------- resolution

/**
 * A shape PRODUCT.md decides, written in the interface's own notation: `Ack`,
 * `PagedResponse of {…}`, or any type (`{ids*: array of number, …}`).
 */
export function parseShape(text: string, document: SpecDocument): SpecType {
  const paged = /^PagedResponse of (.+)$/s.exec(text);
  if (text === 'Ack') return resolveType({ kind: 'ref', name: 'ack' }, document.resources, []);
  const item = parseType(paged ? paged[1]! : text);
  if (!paged) return resolveType(item, document.resources, []);
  const envelope = document.resources.get('pagedresponse') ?? fail('no PagedResponse in the interface', text);
  return resolveType(
    { kind: 'object', fields: envelope.map((f) => ({ ...f, type: substituteX(f.type, item) })) },
    document.resources,
    [],
  );
}

function resolveEndpoint(endpoint: SpecEndpoint, resources: Map<string, SpecField[]>): SpecEndpoint {
  const resolve = (type: SpecType | undefined) => (type ? resolveType(type, resources, []) : undefined);
  const resolveFields = (fields: SpecField[]) =>
    fields.map((f) => ({ ...f, type: resolveType(f.type, resources, []) }));
  return {
    ...endpoint,
    query: resolveFields(endpoint.query),
    headers: resolveFields(endpoint.headers),
    pathParams: resolveFields(endpoint.pathParams),
    body: resolve(endpoint.body),
    response: resolve(endpoint.response),
  };
}

function resolveType(type: SpecType, resources: Map<string, SpecField[]>, seen: string[]): SpecType {
  switch (type.kind) {
    case 'array':
      return type.items ? { kind: 'array', items: resolveType(type.items, resources, seen) } : type;
    case 'map':
      return type.values ? { kind: 'map', values: resolveType(type.values, resources, seen) } : type;
    case 'object':
      return type.fields
        ? { kind: 'object', fields: type.fields.map((f) => ({ ...f, type: resolveType(f.type, resources, seen) })) }
        : type;
    case 'ref': {
      if (seen.includes(type.name)) return fail('resource refers to itself', type.name);
      const paged = /^pagedresponse of (.+)$/.exec(type.name);
      const fields = resources.get(paged ? 'pagedresponse' : type.name);
      if (!fields) return fail('unknown resource', type.name);
      const item: SpecType | undefined = paged ? { kind: 'ref', name: paged[1]! } : undefined;
      const substituted = fields.map((f) => ({ ...f, type: item ? substituteX(f.type, item) : f.type }));
      return resolveType({ kind: 'object', fields: substituted }, resources, [...seen, type.name]);
    }
    default:
      return type;
  }
}

/** PagedResponse's `list` is an `array of X` (§1.1). */
function substituteX(type: SpecType, item: SpecType): SpecType {
  if (type.kind === 'ref' && type.name === 'x') return item;
  if (type.kind === 'array' && type.items) return { kind: 'array', items: substituteX(type.items, item) };
  return type;
}
