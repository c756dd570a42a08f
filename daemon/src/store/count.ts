import type { SelectQueryBuilder } from 'kysely';

/** How many rows a query (with its filters and joins) matches: the total of a paged list. */
export async function countRows<DB, TB extends keyof DB, O>(q: SelectQueryBuilder<DB, TB, O>): Promise<number> {
  const r = await q
    .clearSelect()
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  // Kysely cannot name the selection of a generic query; it is the one column selected above.
  return Number((r as { n: number }).n);
}
