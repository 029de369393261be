import { describe, expect, it } from 'vitest';
import { compareType } from './openapi-compare.js';
import { parseFieldSentence, type SpecField, type SpecType } from './spec-fields.js';
import { parseSpec } from './spec-parser.js';

/** The patterns the interface document uses, and the promise to fail loudly on any other. */

const names = (fields: SpecField[]) => fields.map((f) => `${f.name}${f.required ? '*' : ''}:${f.type.kind}`);

const doc = (body: string) =>
  `## 1. Intro\n\n### 1.2 Shared envelope: Ack\n\n| Field | Type | Notes |\n|---|---|---|\n| success* | boolean | |\n\n${body}`;

describe('field sentences', () => {
  it('types untyped names by the next typed name, and keeps requiredness for the sentence', () => {
    expect(
      names(parseFieldSentence('Required: a, b (string); c (number). Optional: d, e (booleans)', { required: false })),
    ).toEqual(['a*:string', 'b*:string', 'c*:number', 'd:boolean', 'e:boolean']);
  });

  it('reads group types, where a parenthesis is a note, and expands numbered ranges', () => {
    const fields = parseFieldSentence(
      'Optional numbers: max (a note), most_likely_pool_1 to most_likely_pool_3 (underscore)',
      { required: false },
    );
    expect(names(fields)).toEqual([
      'max:number',
      'most_likely_pool_1:number',
      'most_likely_pool_2:number',
      'most_likely_pool_3:number',
    ]);
    expect(
      names(parseFieldSentence('mostlikelypool1 to mostlikelypool2 (number each; no underscore)', { required: false })),
    ).toEqual(['mostlikelypool1:number', 'mostlikelypool2:number']);
  });

  it('reads inline objects with required fields and notes, and "each a required" objects', () => {
    const [schema] = parseFieldSentence(
      'ordering_schema: array of {day*: number (1 = Monday to 7 = Sunday), time*: string, week_numbers: string (comma-separated)}',
      { required: false },
    );
    expect(schema!.type).toEqual({
      kind: 'array',
      items: {
        kind: 'object',
        fields: [
          { name: 'day', required: true, type: { kind: 'number' } },
          { name: 'time', required: true, type: { kind: 'string' } },
          { name: 'week_numbers', required: false, type: { kind: 'string' } },
        ],
      },
    });
    const [object] = parseFieldSentence('Optional object: remaining, with pool_1 to pool_2, each a required number', {
      required: false,
    });
    expect(object!.type).toEqual({
      kind: 'object',
      fields: [
        { name: 'pool_1', required: true, type: { kind: 'number' } },
        { name: 'pool_2', required: true, type: { kind: 'number' } },
      ],
    });
  });

  it('fails loudly on a field it cannot read or type', () => {
    expect(() => parseFieldSentence('Optional: a (string), b', { required: false })).toThrow(/no type for b/);
    expect(() => parseFieldSentence('a (string) or maybe b', { required: false })).toThrow(/cannot parse field/);
    expect(() => parseFieldSentence('Required: 1 LossReasonCode', { required: false })).toThrow(/cannot parse field/);
  });
});

describe('the document', () => {
  it('reads an endpoint with query, header, body lines and a PagedResponse-free return', () => {
    const spec = parseSpec(
      doc(
        `## 4. Endpoints\n\n### 4.3 Deliveries\n\n**POST /stores/{store_number}/orders/deliveries** creates.\n\n` +
          '- Header: `container_override` (optional boolean).\n' +
          '- Body `orders` (array) of:\n  - Required: `order_number` (string, unique), `order_type` (number).\n  - Optional: `order_lines` (array).\n' +
          '- Line: required `line_number` (number). Optional: `barcode` (string).\n- Returns Ack.\n',
      ),
    );
    const [endpoint] = spec.endpoints;
    expect(endpoint!.pathParams).toEqual([{ name: 'store_number', required: true, type: { kind: 'string' } }]);
    expect(names(endpoint!.headers)).toEqual(['container_override:boolean']);
    const orders = (endpoint!.body as Extract<SpecType, { kind: 'object' }>).fields![0]!;
    const item = (orders.type as { items: { fields: SpecField[] } }).items.fields;
    expect(names(item)).toEqual(['order_number*:string', 'order_type*:number', 'order_lines:array']);
    expect(names((item[2]!.type as { items: { fields: SpecField[] } }).items.fields)).toEqual([
      'line_number*:number',
      'barcode:string',
    ]);
    expect(endpoint!.response).toEqual({
      kind: 'object',
      fields: [{ name: 'success', required: true, type: { kind: 'boolean' } }],
    });
  });

  it('fails loudly on an endpoint bullet, a resource sentence or a resource name it does not know', () => {
    const endpoint = (bullet: string) =>
      doc(`## 4. Endpoints\n\n### 4.9 Products\n\n**GET /products**\n\n- ${bullet}\n`);
    expect(() => parseSpec(endpoint('Query: `page_size` (frobnicator)'))).toThrow(/§4.9: no type for page_size/);
    expect(() => parseSpec(endpoint('Cookies: `x` (string)'))).toThrow(/§4.9: cannot parse/);
    expect(() => parseSpec(endpoint('Returns PagedResponse of gizmo'))).toThrow(/unknown resource/);
    expect(() =>
      parseSpec(doc('## 2. Resources\n\n### 2.6 Reason code (read)\n\nSome new sentence about codes.\n')),
    ).toThrow(/§2.6: cannot parse/);
    expect(() =>
      parseSpec(
        doc('## 2. Resources\n\n### 2.6 Reason code (read)\n\n| Field | Type |\n|---|---|\n| code* | decimal |\n'),
      ),
    ).toThrow(/§2.6/);
  });
});

describe('comparison with a served schema', () => {
  const spec: SpecType = {
    kind: 'object',
    fields: [
      { name: 'reason_code', required: false, type: { kind: 'string' } },
      { name: 'quantity', required: true, type: { kind: 'number' } },
      { name: 'note', required: false, type: { kind: 'string' } },
    ],
  };

  it('names a type change, a missing field, a lost requirement and an added one', () => {
    const served = {
      type: 'object',
      required: ['note'],
      properties: { reason_code: { type: 'integer' }, note: { type: 'string' } },
    };
    expect(compareType(spec, served, 'body', 'request').map((m) => `${m.at} ${m.problem}`)).toEqual([
      'body.reason_code type',
      'body.quantity missing',
      'body.note stricter',
    ]);
    const optional = {
      type: 'object',
      properties: { reason_code: { type: 'string' }, quantity: { anyOf: [{ type: 'integer' }, { type: 'null' }] } },
    };
    expect(compareType(spec, optional, 'response', 'response').map((m) => `${m.at} ${m.problem}`)).toEqual([
      'response.quantity not required',
      'response.note missing',
    ]);
  });
});
