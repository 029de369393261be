import { sql, type Kysely } from 'kysely';

/**
 * A PostgreSQL plan with each partition's index named by the partitioned index it belongs to
 * (the ledger is partitioned by month since migration 0025: a plan names
 * `stock_logs_y2026m11_review_status_id_idx` where the schema says `stock_logs_review`), so a
 * test can ask for the index by the name the migrations give it.
 */
export async function withParentIndexNames(db: Kysely<any>, plan: string): Promise<string> {
  const { rows } = await sql<{ child: string; parent: string }>`
    select c.relname as child, p.relname as parent
    from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
    where c.relkind = 'i' and c.relnamespace = current_schema()::regnamespace`.execute(db);
  const parents = new Map(rows.map((row) => [row.child, row.parent]));
  return plan.replace(/\b[a-z_0-9]+\b/g, (word) => parents.get(word) ?? word);
}
