import { createHash } from 'node:crypto';
import type { FieldError } from './validation.js';

/** Stable hash of a normalised record: equal input, equal hash (identical re-sends are no-ops). */
export function contentHash(normalised: unknown): string {
  return createHash('sha1').update(JSON.stringify(normalised)).digest('base64url');
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

/**
 * A natural key twice in one request is ambiguous (which one wins?), so it is refused
 * with the paths of the repeats — a rule checkable from the request alone (PRODUCT §3: 400).
 */
export function duplicateKeyErrors<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  arrayPath: string,
  keyName: string,
): FieldError[] {
  const firstIndex = new Map<string, number>();
  const errors: FieldError[] = [];
  items.forEach((item, index) => {
    const key = keyOf(item);
    const first = firstIndex.get(key);
    if (first === undefined) firstIndex.set(key, index);
    else
      errors.push({
        path: `${arrayPath}[${index}].${keyName}`,
        message: `repeats ${keyName} '${key}' of ${arrayPath}[${first}]`,
      });
  });
  return errors;
}

export interface UpsertCounts {
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
}

export function describeCounts(counts: UpsertCounts): string {
  return `created ${counts.created}, updated ${counts.updated}, unchanged ${counts.unchanged}, deleted ${counts.deleted}`;
}

/** Items grouped by a key, each group in input order (Map.groupBy arrives with Node 21). */
export function groupBy<T, K>(items: Iterable<T>, keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
