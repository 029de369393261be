import {
  bulletFields,
  fail,
  isProse,
  parseFieldSentence,
  parseListQualifier,
  parseType,
  type FieldDefaults,
  type SpecField,
  type SpecType,
} from './spec-fields.js';
import { stripFinalPeriod, type Bullet, type Section } from './spec-text.js';

/**
 * The endpoint sections of the interface (§4.x): a bold `**METHOD /path**` (or a row of
 * §4.12's table) followed by bullets for its path, query, headers, body and return.
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

const METHOD_PATH = /\*\*(GET|POST|PUT|DELETE|PATCH) (\/\S+)\*\*/g;

function newEndpoint(method: string, path: string, section: string): SpecEndpoint {
  return { method, path, section, pathParams: [], query: [], headers: [], body: undefined, response: undefined };
}

export function readEndpoints(section: Section, earlier: SpecEndpoint[]): SpecEndpoint[] {
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
    if (!endpoint.pathParams.some((p) => p.name === name))
      endpoint.pathParams.push({ name: name!, required: true, type: { kind: 'string' } });
  }
  for (const param of endpoint.pathParams) param.required = true;
}

/** One bullet under an endpoint; returns the fields of the body's item (for `Line:`, `Location object`). */
function readEndpointBullet(
  bullet: Bullet,
  current: SpecEndpoint[],
  before: SpecEndpoint[],
  bodyItem: SpecField[] | undefined,
) {
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
    const inherited = same
      ? (before.filter((e) => !current.includes(e)).at(-1)?.query ?? fail('no previous endpoint', text))
      : [];
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
    lines[0]!.type = {
      kind: 'array',
      items: { kind: 'object', fields: parseFieldSentence(match[1]!, { required: false }) },
    };
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
    fields: [
      { name: name!, required: Boolean(star), type: { kind: 'array', items: { kind: 'object', fields: item } } },
    ],
  };
  return { body, item };
}

function readReturns(text: string): SpecType | undefined {
  let match: RegExpExecArray | null;
  if (text === 'Ack') return { kind: 'ref', name: 'ack' };
  if (text === 'a bare JSON boolean') return { kind: 'boolean' };
  if (text === 'the product envelope of 2.12') return { kind: 'ref', name: 'product envelope' };
  if ((match = /^PagedResponse of (.+?)(?: \(\d+\.\d+\))?$/.exec(text)))
    return { kind: 'ref', name: `pagedresponse of ${match[1]!.toLowerCase()}` };
  if ((match = /^a JSON array of (.+?)(?: \(\d+\.\d+\))?$/.exec(text))) return parseType(`array of ${match[1]!}`);
  if ((match = /^`?(\{.*\})`?(?:, all optional)?$/s.exec(text))) return parseType(match[1]!);
  return fail('cannot parse response', text);
}
