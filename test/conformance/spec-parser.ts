import { readFileSync } from 'node:fs';
import {
  fail,
  parseFieldSentence,
  parseListQualifier,
  parseType,
  type FieldDefaults,
  type SpecField,
  type SpecType,
} from './spec-fields.js';
import { readSections, stripFinalPeriod, type Block, type Bullet, type Section } from './spec-text.js';

/**
 * Reads the interface document (`../shared/spec/store-operations-interface.md`): the
 * envelopes of §1.1/§1.2, the resources of §2 and the endpoints of §4, into plain field
 * lists. What it cannot read it refuses (SpecParseError), naming the sentence.
 */

export interface SpecEndpoint {
  method: string;
  /** As written, relative to `/api/v2/public`. */
  path: string;
  section: string;
  pathParams: SpecField[];
  query: SpecField[];
  headers: SpecField[];
  body?: SpecType;
  response?: SpecType;
}

export interface SpecDocument {
  resources: Map<string, SpecField[]>;
  endpoints: SpecEndpoint[];
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

const isProse = (text: string) => PROSE.some((pattern) => pattern.test(text));

export function readSpec(file: string): SpecDocument {
  return parseSpec(readFileSync(file, 'utf8'));
}

export function parseSpec(markdown: string): SpecDocument {
  const resources = new Map<string, SpecField[]>();
  const endpoints: SpecEndpoint[] = [];
  for (const section of readSections(markdown)) {
    try {
      if (section.number === '1.1' || section.number === '1.2' || /^2\.\d+$/.test(section.number)) readResources(section, resources);
      else if (/^4\.\d+$/.test(section.number)) endpoints.push(...readEndpoints(section, endpoints));
    } catch (error) {
      throw new Error(`interface §${section.number}: ${(error as Error).message}`, { cause: error });
    }
  }
  for (const [owner, links] of Object.entries(ITEM_RESOURCES)) {
    if (!resources.has(owner)) continue; // a document without that resource (unit tests)
    for (const [field, itemName] of Object.entries(links)) {
      const target = resources.get(owner)?.find((f) => f.name === field);
      if (!target || target.type.kind !== 'array' || target.type.items) fail('item link names no item-less array', `${owner}.${field}`);
      target!.type = { kind: 'array', items: { kind: 'ref', name: itemName } };
    }
  }
  return { resources, endpoints: endpoints.map((endpoint) => resolveEndpoint(endpoint, resources)) };
}

// ---------------------------------------------------------------- §1.1, §1.2, §2

function resourceName(title: string): string {
  const plain = title.replace(/^Shared envelope: /, '').replace(/\s*\([^)]*\)/g, '').trim().toLowerCase();
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
    else addFields(resources, target.name, block.items.flatMap((bullet) => bulletFields(bullet, target.defaults)));
  }
}

function readFieldTable(table: Extract<Block, { kind: 'table' }>): SpecField[] {
  const [header, ...rows] = table.rows;
  if (header?.[0] !== 'Field' || header[1] !== 'Type') fail('table without Field | Type columns', header?.join(' | ') ?? '');
  return rows.map(([field, type]) => {
    const match = /^([A-Za-z_]\w*)(\*)?$/.exec(field ?? '');
    if (!match) return fail('cannot parse table field', field ?? '');
    return { name: match[1]!, required: Boolean(match[2]), type: parseType(type ?? '') };
  });
}

function bulletFields(bullet: Bullet, defaults: FieldDefaults): SpecField[] {
  if (bullet.children.length > 0) fail('nested bullets in a field list', bullet.text);
  return parseFieldSentence(bullet.text, defaults);
}

// ---------------------------------------------------------------- §4

const METHOD_PATH = /\*\*(GET|POST|PUT|DELETE|PATCH) (\/\S+)\*\*/g;

function newEndpoint(method: string, path: string, section: string): SpecEndpoint {
  return { method, path, section, pathParams: [], query: [], headers: [], body: undefined, response: undefined };
}

function readEndpoints(section: Section, earlier: SpecEndpoint[]): SpecEndpoint[] {
  const endpoints: SpecEndpoint[] = [];
  let current: SpecEndpoint[] = [];
  let bodyItem: SpecField[] | undefined;
  for (const block of section.blocks) {
    if (block.kind === 'paragraph') {
      const found = [...block.text.matchAll(METHOD_PATH)];
      if (found.length === 0) {
        if (isProse(block.text)) continue;
        fail('cannot parse', block.text);
      }
      current = found.map((m) => newEndpoint(m[1]!, m[2]!, section.number));
      endpoints.push(...current);
      bodyItem = undefined;
      const prose = block.text.replace(METHOD_PATH, '').trim();
      const arrayResponse = /The response is a JSON array of (.+?)(?: \(\d+\.\d+\))?\.$/.exec(prose);
      if (arrayResponse) for (const endpoint of current) endpoint.response = parseType(`array of ${arrayResponse[1]}`);
      continue;
    }
    if (block.kind === 'table') {
      // §4.12: | Method and path | Purpose |
      const [header, ...rows] = block.rows;
      if (header?.[0] !== 'Method and path') fail('unexpected table', header?.join(' | ') ?? '');
      current = rows.map(([cell]) => {
        const match = /^(GET|POST|PUT|DELETE) (\/\S+)$/.exec(cell ?? '');
        if (!match) return fail('cannot parse endpoint cell', cell ?? '');
        return newEndpoint(match[1]!, match[2]!, section.number);
      });
      endpoints.push(...current);
      continue;
    }
    for (const bullet of block.items) {
      if (current.length === 0) fail('bullet before any endpoint', bullet.text);
      bodyItem = readEndpointBullet(bullet, current, [...earlier, ...endpoints], bodyItem);
    }
  }
  for (const endpoint of endpoints) addPathParams(endpoint);
  return endpoints;
}

/** `{store_number}` is a string (§4); other path parameters are typed by a `Path:` bullet. */
function addPathParams(endpoint: SpecEndpoint) {
  for (const [, name] of endpoint.path.matchAll(/\{(\w+)\}/g)) {
    if (!endpoint.pathParams.some((p) => p.name === name)) endpoint.pathParams.push({ name: name!, required: true, type: { kind: 'string' } });
  }
  for (const param of endpoint.pathParams) param.required = true;
}

/** One bullet under an endpoint; returns the fields of the body's item (for `Line:`, `Location object`). */
function readEndpointBullet(bullet: Bullet, current: SpecEndpoint[], before: SpecEndpoint[], bodyItem: SpecField[] | undefined) {
  const text = stripFinalPeriod(bullet.text);
  const each = (apply: (endpoint: SpecEndpoint) => void) => current.forEach(apply);
  if (bullet.children.length > 0 && !/^Body\b/.test(text)) {
    if (text === 'Rules:') return bodyItem; // behaviour, not shape
    fail('nested bullets under', text);
  }
  let match: RegExpExecArray | null;
  if ((match = /^Query(?: \((.*?)\))?: (.*)$/s.exec(text))) {
    const defaults = { required: false, ...parseListQualifier(match[1]) };
    const same = /^same as the previous endpoint, plus (.*)$/s.exec(match[2]!);
    const inherited = same ? before.filter((e) => !current.includes(e)).at(-1)?.query ?? fail('no previous endpoint', text) : [];
    const fields = [...inherited, ...parseFieldSentence(same ? same[1]! : match[2]!, defaults)];
    each((e) => e.query.push(...fields));
    return bodyItem;
  }
  if ((match = /^Headers?(?: \((.*?)\))?: (.*)$/s.exec(text))) {
    const fields = parseFieldSentence(match[2]!, { required: false, ...parseListQualifier(match[1]) });
    each((e) => e.headers.push(...fields));
    return bodyItem;
  }
  if ((match = /^Path: (.*)$/s.exec(text))) {
    const fields = parseFieldSentence(match[1]!, { required: true });
    each((e) => e.pathParams.push(...fields));
    return bodyItem;
  }
  if (/^Body\b/.test(text)) {
    const { body, item } = readBody(bullet);
    each((e) => (e.body = body));
    return item;
  }
  if ((match = /^Returns (.*)$/s.exec(text))) {
    const response = readReturns(match[1]!);
    each((e) => (e.response = response));
    return bodyItem;
  }
  if (text === 'Response shape: not shown') return bodyItem;
  if ((match = /^Line: (.*)$/s.exec(text))) {
    const lines = (bodyItem ?? []).filter((f) => f.type.kind === 'array' && !f.type.items);
    if (lines.length !== 1) fail('Line: needs exactly one item-less array in the body item', text);
    lines[0]!.type = { kind: 'array', items: { kind: 'object', fields: parseFieldSentence(match[1]!, { required: false }) } };
    return bodyItem;
  }
  if ((match = /^\w+ object(?: \((.*?)\))?: (.*)$/s.exec(text))) {
    const objects = (bodyItem ?? []).filter((f) => f.type.kind === 'object' && !f.type.fields);
    if (objects.length === 0) fail('no object field in the body item to describe', text);
    const fields = parseFieldSentence(match[2]!, { required: false, ...parseListQualifier(match[1]) });
    for (const field of objects) field.type = { kind: 'object', fields };
    return bodyItem;
  }
  if ((match = /^The cross-store variant adds (.*); the store variant takes the store from its path$/s.exec(text))) {
    const fields = parseFieldSentence(match[1]!.replace(/\(string filter\)/, '(string)'), { required: false });
    each((e) => !e.path.includes('{store_number}') && e.query.push(...fields));
    return bodyItem;
  }
  if ((match = /^The (\w+) write endpoints each return Ack$/.exec(text))) {
    const writes = current.filter((e) => e.method !== 'GET');
    if (String(writes.length) !== { four: '4' }[match[1]!]) fail('count of write endpoints differs', text);
    for (const endpoint of writes) endpoint.response = { kind: 'ref', name: 'ack' };
    return bodyItem;
  }
  // The list's shape (bare array, object or PagedResponse) is "not shown" (§4.12).
  if (/^The list response is described by the customer order model/.test(text) || isProse(text)) return bodyItem;
  return fail('cannot parse', text);
}

const ARRAY_BODY = /^Body `(\w+)`(\*)? \(array\)(.*)$/s;

/** The body forms of §4: a field list, an inline object, or one named array of items. */
function readBody(bullet: Bullet): { body: SpecType; item?: SpecField[] } {
  const text = stripFinalPeriod(bullet.text);
  const nested = (defaults: FieldDefaults) => bullet.children.flatMap((child) => bulletFields(child, defaults));
  let match: RegExpExecArray | null;
  if ((match = /^Body: (\{.*\})$/s.exec(text))) return { body: parseType(match[1]!) };
  if ((match = /^Body(?: \((.*?)\))?:(?: (.*))?$/s.exec(text))) {
    const defaults = { required: false, ...parseListQualifier(match[1]) };
    const fields = match[2] ? parseFieldSentence(match[2], defaults) : nested(defaults);
    return { body: { kind: 'object', fields }, item: fields };
  }
  match = ARRAY_BODY.exec(text);
  if (!match) return fail('cannot parse body', text);
  const [, name, star, tail] = match;
  let item: SpecField[];
  let form: RegExpExecArray | null;
  if (tail === ' of:') item = nested({ required: false });
  else if ((form = /^ of: (.*)$/s.exec(tail!))) item = parseFieldSentence(form[1]!, { required: false });
  else if ((form = /^ of, all required except (.+):$/.exec(tail!)))
    item = nested({ required: true, optionalNames: form[1]!.split(/,\s*|\s+and\s+/) });
  else if ((form = /^; each element has required (.+?) and these optional fields:$/.exec(tail!)))
    item = [...parseFieldSentence(form[1]!, { required: true }), ...nested({ required: false })];
  else if ((form = /^; each element has required (.+?) and optional: (.*)$/s.exec(tail!)))
    item = [...parseFieldSentence(form[1]!, { required: true }), ...parseFieldSentence(form[2]!, { required: false })];
  else return fail('cannot parse body', text);
  if (bullet.children.length > 0 && !/:$/.test(tail!)) fail('nested bullets under an inline body', text);
  const body: SpecType = {
    kind: 'object',
    fields: [{ name: name!, required: Boolean(star), type: { kind: 'array', items: { kind: 'object', fields: item } } }],
  };
  return { body, item };
}

function readReturns(text: string): SpecType | undefined {
  let match: RegExpExecArray | null;
  if (text === 'Ack') return { kind: 'ref', name: 'ack' };
  if (text === 'a bare JSON boolean') return { kind: 'boolean' };
  if (text === 'the product envelope of 2.12') return { kind: 'ref', name: 'product envelope' };
  if ((match = /^PagedResponse of (.+?)(?: \(\d+\.\d+\))?$/.exec(text))) return { kind: 'ref', name: `pagedresponse of ${match[1]!.toLowerCase()}` };
  if ((match = /^a JSON array of (.+?)(?: \(\d+\.\d+\))?$/.exec(text))) return parseType(`array of ${match[1]!}`);
  if ((match = /^`?(\{.*\})`?(?:, all optional)?$/s.exec(text))) return parseType(match[1]!);
  return fail('cannot parse response', text);
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
  return resolveType({ kind: 'object', fields: envelope.map((f) => ({ ...f, type: substituteX(f.type, item) })) }, document.resources, []);
}

function resolveEndpoint(endpoint: SpecEndpoint, resources: Map<string, SpecField[]>): SpecEndpoint {
  const resolve = (type: SpecType | undefined) => (type ? resolveType(type, resources, []) : undefined);
  const resolveFields = (fields: SpecField[]) => fields.map((f) => ({ ...f, type: resolveType(f.type, resources, []) }));
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
