import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeProductListCopy, type AnsweredLine } from '../../bench/baselines/product-list-copy.js';
import { startProductListFloor } from '../../bench/lib/baseline-servers.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-product-list-floor-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const ROUTE = '/api/v2/public/stores/S00001/productlists';

/** Lines as the service answers them: the fields in its order, absent ones left out. */
const LINES: AnsweredLine[] = [
  {
    quantity: 2,
    barcode: '8700000000007',
    category_code: 'FRESH',
    colli: 6,
    is_decimal: false,
    parent_category_code: 'FOOD',
    product_name: 'Käse Gouda 😀',
    product_number: 'P0000008',
    stock_pool: '2',
    store_walking_order: 10,
  },
  {
    quantity: 0.25,
    colli: 1,
    is_decimal: true,
    product_name: 'Loose "apples"\tkg',
    product_number: 'P0000003',
    store_walking_order: 0,
  },
  {
    quantity: 1,
    barcode: '8700000000001',
    category_code: 'DRY',
    colli: 1,
    is_decimal: false,
    product_name: 'Product 2',
    product_number: 'P0000002',
    store_walking_order: 5,
  },
];

describe('product list read floor (bare Fastify + one SQL query on a plain table)', () => {
  it('answers the lines of the list asked for exactly as written, in order, absent fields absent; another list has none', async () => {
    const file = path.join(dir, 'copy.sqlite');
    expect(writeProductListCopy(file, 7, LINES)).toBe(LINES.length);
    const floor = await startProductListFloor(ROUTE, file, '?product_list_id=7');
    try {
      const response = await fetch(`${floor.origin}${ROUTE}?show_lines=true&product_list_id=7`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const text = await response.text();
      expect(text).toBe(JSON.stringify({ list: [{ id: 7, line_count: 3, lines: LINES }] }));
      expect(await (await fetch(`${floor.origin}${ROUTE}?product_list_id=8`)).json()).toEqual({ list: [] });
      expect((await fetch(`${floor.origin}/elsewhere`)).status).toBe(404);
    } finally {
      await floor.stop();
    }
  });

  it('writes a fresh copy each time', () => {
    const file = path.join(dir, 'again.sqlite');
    writeProductListCopy(file, 1, LINES);
    expect(writeProductListCopy(file, 2, LINES.slice(0, 1))).toBe(1);
  });
});
