import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, buildTestApp, type TestApp } from '../helpers/build.js';
import { DIALECTS } from '../helpers/dialects.js';
import { storeInput } from '../helpers/factories.js';

type StoreRead = Record<string, unknown> & { id: number; store_number: string };

const poolNames = Object.fromEntries(
  Array.from({ length: 10 }, (_, i) => [`store_stock_pool_${i + 1}`, `Pool ${i + 1}`]),
);

/** Every field of interface §4.7, each with a value. */
const FULL_INPUT = {
  ...storeInput('F1'),
  store_name: 'Full Store',
  is_active_data_exchange: false,
  address: 'Main Street 1',
  area_description: 'Noord-Holland',
  area_id: 'NH',
  city: 'Amsterdam',
  contact_details: 'manager@example.com',
  cost_center: 'CC-1',
  country_code: 'NL',
  country_name: 'Netherlands',
  esl_server_path: '\\\\esl\\f1',
  invent_location: 'INV-1',
  ip_range_begin: '10.0.0.1',
  ip_range_end: '10.0.0.254',
  legal_entity: 'Store BV',
  local_server_path: '/srv/f1',
  phone_number: '+31 20 123 4567',
  postal_code: '1000 AA',
  store_gln: '8712345000011',
  store_next_delivery_datetime: '2024-05-01T08:30:00+02:00',
  store_next_ordering_datetime: '2024-04-30T14:00:00.25Z',
  ...poolNames,
  store_type_code: 'CITY',
  store_type_description: 'City store',
  secondary_key: 'SK-F1',
  tertiary_key: 'TK-F1',
  warehouse_id: 'W9',
  area_manager_user_id: 42,
  price_line_id: 7,
  free_fields: [
    { sort_order: 2, key: 'region', value: 'West' },
    { sort_order: 1, key: 'manager', value: 'Anna' },
    { sort_order: 3, value: 'no key' },
  ],
  opening_hours: [
    { sort_order: 2, key: 'Tue', value: '09:00-17:00' },
    { sort_order: 1, key: 'Mon', value: '08:00-18:00' },
    { sort_order: 3, key: 'Sun' },
  ],
  ordering_schema: [
    { day: 1, delivery_offset: 2, ordering_offset: 0, time: '14:00', category_code: 'FRESH', week_numbers: '1,3,5' },
    { day: 7, delivery_offset: -1, ordering_offset: -2, time: '09:30' },
  ],
  store_printers: [
    {
      is_bluetooth: true,
      printer_type: 1,
      printer_ip: '10.0.0.5',
      printer_name: 'Labels',
      printer_serial: 'SN-1',
      vendor: 'Zebra',
    },
    { is_bluetooth: false, printer_type: 2 },
  ],
};

/** The same store as §2.7 reads it, with the PRODUCT §6 mappings. */
const FULL_READ = {
  is_active: true,
  is_active_data_exchange: false,
  is_warehouse: false,
  area_description: 'Noord-Holland',
  area_id: 'NH',
  city: 'Amsterdam',
  cost_center: 'CC-1',
  country_code: 'NL',
  country_name: 'Netherlands',
  esl_server_path: '\\\\esl\\f1',
  ip_range_begin: '10.0.0.1',
  ip_range_end: '10.0.0.254',
  local_server_path: '/srv/f1',
  opening_hours: 'Mon 08:00-18:00; Tue 09:00-17:00; Sun',
  phone_number: '+31 20 123 4567',
  secondary_key: 'SK-F1',
  store_gln: '8712345000011',
  store_name: 'Full Store',
  store_next_delivery_datetime: '2024-05-01T06:30:00.000Z',
  store_next_ordering_datetime: '2024-04-30T14:00:00.250Z',
  store_number: 'F1',
  ...poolNames,
  store_type_code: 'CITY',
  store_type_description: 'City store',
  tertiary_key: 'TK-F1',
  warehouse_id: 'W9',
  area_manager_user_id: 42,
  price_line_id: 7,
  free_fields: [
    { label: 'manager', sort_order: 1, value: 'Anna' },
    { label: 'region', sort_order: 2, value: 'West' },
    { sort_order: 3, value: 'no key' },
  ],
  ordering_schema: [
    { day: 1, delivery_offset: 2, ordering_offset: 0, time: '14:00', category_code: 'FRESH', week_numbers: '1,3,5' },
    { day: 7, delivery_offset: -1, ordering_offset: -2, time: '09:30' },
  ],
  printers: [
    { is_bluetooth: true, printer_ip: '10.0.0.5', printer_name: 'Labels', printer_type: 1 },
    { is_bluetooth: false, printer_type: 2 },
  ],
};

for (const dialect of DIALECTS) {
  describe(`stores (interface §4.7, §2.7, ${dialect.name})`, () => {
    let t: TestApp;
    const list = async (query = '', token?: string): Promise<StoreRead[]> => {
      const response = await t.get(`${API}/stores?page_size=1000&${query}`, token);
      expect(response.statusCode, response.body).toBe(200);
      return response.json().list;
    };
    const numbers = async (query: string) => (await list(query)).map((s) => s.store_number);
    const importStores = async (stores: unknown[], query = '', token?: string) => {
      const response = await t.post(`${API}/stores${query}`, { stores }, token);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().success).toBe(true);
      return response.json().message as string;
    };
    const rows = () => t.app.ctx.db.selectFrom('stores').selectAll().orderBy('id').execute();

    beforeAll(async () => {
      t = await buildTestApp(dialect);
    });
    afterAll(async () => {
      await t.close();
      await dialect.cleanup();
    });

    describe('read shape', () => {
      beforeAll(async () => {
        expect(await importStores([FULL_INPUT, storeInput('M1')])).toBe('created 2, updated 0, unchanged 0, deleted 0');
      });

      it('every field round-trips, with the §6 mappings and date-times in UTC', async () => {
        const [full] = await list('search_text=F1');
        const { id, ...rest } = full!;
        expect(id).toEqual(expect.any(Number));
        expect(rest).toEqual(FULL_READ);
      });

      it('a minimal store reads back with only what was sent', async () => {
        const [minimal] = await list('search_text=M1');
        const { id, ...rest } = minimal!;
        expect(id).toEqual(expect.any(Number));
        expect(rest).toEqual({
          is_active: true,
          is_active_data_exchange: true,
          is_warehouse: false,
          store_name: 'Store M1',
          store_number: 'M1',
          free_fields: [],
          ordering_schema: [],
          printers: [],
        });
      });

      it('an update replaces nested arrays and clears fields left out', async () => {
        await importStores([
          {
            ...storeInput('M2'),
            city: 'Delft',
            opening_hours: [{ sort_order: 1, key: 'Mon', value: '9-5' }],
            store_stock_pool_3: 'Damaged',
          },
        ]);
        expect(
          await importStores([
            { ...storeInput('M2'), opening_hours: [{ sort_order: 1, value: 'closed' }], store_stock_pool_3: 'Returns' },
          ]),
        ).toBe('created 0, updated 1, unchanged 0, deleted 0');
        const [store] = await list('search_text=M2');
        expect(store).toMatchObject({ opening_hours: 'closed', store_stock_pool_3: 'Returns' });
        expect(store).not.toHaveProperty('city');
      });

      it('keeps the audit columns: created_* stay, updated_on and modified_by follow the writer (PRODUCT §3)', async () => {
        const before = (await rows()).find((r) => r.store_number === 'M1')!;
        expect(before.created_by).toBe('admin');
        const integration = await t.token('integration');
        await new Promise((resolve) => setTimeout(resolve, 5));
        await importStores([storeInput('M1', { city: 'Haarlem' })], '', integration);
        const after = (await rows()).find((r) => r.store_number === 'M1')!;
        expect(after).toMatchObject({ id: before.id, created_on: before.created_on, created_by: 'admin' });
        expect(after.modified_by).toMatch(/^integration-/);
        expect(after.updated_on).toBeGreaterThan(before.updated_on);
      });
    });

    describe('filters', () => {
      beforeAll(async () => {
        await importStores([
          storeInput('Q-100', {
            store_name: 'Lakeside',
            city: 'Überlingen',
            secondary_key: 'SK',
            area_description: 'Needle',
          }),
          storeInput('Q-200', { store_name: 'Bodensee Center', city: 'Konstanz', secondary_key: 'SK-2' }),
          storeInput('Q-300', { store_name: 'ZENTRALLAGER', city: 'Ulm', is_warehouse: true, secondary_key: 'SK' }),
        ]);
      });

      it('is_warehouse', async () => {
        expect(await numbers('is_warehouse=true&search_text=Q-')).toEqual(['Q-300']);
        expect(await numbers('is_warehouse=false&search_text=Q-')).toEqual(['Q-100', 'Q-200']);
      });

      it('search_text: case-insensitive substring of store_number, store_name or city only', async () => {
        expect(await numbers('search_text=q-2')).toEqual(['Q-200']);
        expect(await numbers('search_text=bodensee')).toEqual(['Q-200']);
        expect(await numbers('search_text=zentral')).toEqual(['Q-300']);
        expect(await numbers('search_text=KONST')).toEqual(['Q-200']);
        expect(await numbers('search_text=needle')).toEqual([]);
        expect(await numbers('search_text=')).toContain('Q-100');
      });

      it('search_text folds non-ASCII case too', async () => {
        for (const text of ['Überlingen', 'überlingen', 'ÜBERLINGEN', 'berl']) {
          expect(await numbers(`search_text=${encodeURIComponent(text)}`), text).toEqual(['Q-100']);
        }
      });

      it('secondary_key matches exactly; filters combine', async () => {
        expect(await numbers('secondary_key=SK')).toEqual(['Q-100', 'Q-300']);
        expect(await numbers('secondary_key=sk')).toEqual([]);
        expect(await numbers('secondary_key=SK&is_warehouse=false')).toEqual(['Q-100']);
        expect(await numbers('secondary_key=SK&search_text=ulm')).toEqual(['Q-300']);
      });
    });

    describe('bulk writes (PRODUCT §3)', () => {
      const batch = Array.from({ length: 10 }, (_, i) => storeInput(`A${i}`, { city: 'Batch' }));

      it('are atomic: one invalid item of ten stores nothing', async () => {
        const stores = batch.map((s, i) => (i === 4 ? { ...s, is_active: 'sometimes' } : s));
        const response = await t.post(`${API}/stores`, { stores });
        expect(response.statusCode).toBe(400);
        expect(response.json().errors).toEqual([{ path: 'stores[4].is_active', message: 'must be boolean' }]);
        expect(await list('search_text=Batch')).toEqual([]);
      });

      it('an identical re-send changes nothing, not even updated_on', async () => {
        expect(await importStores(batch)).toBe('created 10, updated 0, unchanged 0, deleted 0');
        const before = await rows();
        const lastModified = (await t.get(`${API}/stores?page_size=1`)).json().project_last_modified_date;
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect(await importStores(batch)).toBe('created 0, updated 0, unchanged 10, deleted 0');
        expect(await rows()).toEqual(before);
        expect((await t.get(`${API}/stores?page_size=1`)).json().project_last_modified_date).toBe(lastModified);
        expect(await importStores(batch.map((s, i) => (i === 0 ? { ...s, city: 'Other' } : s)))).toBe(
          'created 0, updated 1, unchanged 9, deleted 0',
        );
      });

      it('a store_number twice in one request is a 400 naming both places', async () => {
        const response = await t.post(`${API}/stores`, {
          stores: [storeInput('D1'), storeInput('D2'), storeInput('D1', { city: 'X' })],
        });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
        const errors = response.json().errors as Array<{ path: string; message: string }>;
        expect(errors).toHaveLength(1);
        expect(errors[0]!.path).toBe('stores[2].store_number');
        expect(errors[0]!.message).toContain('stores[0]');
        expect(await numbers('search_text=D1')).toEqual([]);
        expect(await numbers('search_text=D2')).toEqual([]);
      });

      it('flush=true soft-deletes the stores left out; sending one again restores it', async () => {
        const everything = await rows();
        const live = everything.filter((r) => r.deleted_on === null).map((r) => r.store_number);
        const keep = ['A1', 'A2'];
        const message = await importStores(
          keep.map((n) => storeInput(n, { city: 'Batch' })),
          '?flush=true',
        );
        expect(message).toBe(`created 0, updated 0, unchanged 2, deleted ${live.length - 2}`);
        expect((await list()).map((s) => s.store_number)).toEqual(keep);
        expect((await t.get(`${API}/stores`)).json().total_count).toBe(2);

        const afterFlush = await rows();
        expect(afterFlush).toHaveLength(everything.length);
        const removed = afterFlush.find((r) => r.store_number === 'A5')!;
        expect(removed.deleted_on).toEqual(expect.any(Number));

        expect(await importStores([storeInput('A5', { city: 'Batch' })])).toBe(
          'created 0, updated 1, unchanged 0, deleted 0',
        );
        const [restored] = await list('search_text=A5');
        expect(restored).toMatchObject({ id: removed.id, store_number: 'A5', city: 'Batch' });
        expect((await rows()).find((r) => r.store_number === 'A5')!.deleted_on).toBeNull();
        expect(
          await importStores(
            keep.map((n) => storeInput(n, { city: 'Batch' })),
            '?flush=false',
          ),
        ).toBe('created 0, updated 0, unchanged 2, deleted 0');
      });
    });
  });
}
