import { SqliteAdapter, sql, type Kysely } from 'kysely';
import type { Database } from '../../store/schema';

/**
 * How a search text query narrows the boxes before its LIKE conditions run. On SQLite, the FTS5
 * trigram index `box_search` (migration 007) gives the boxes whose name, short description or
 * owner contains the text, so a query no longer tests all 10,000 boxes. It only narrows: LIKE
 * still decides, so both ways answer the same boxes. Elsewhere (PostgreSQL later: pg_trgm
 * indexes serve the same LIKE) there is no narrowing, and no SQLite-only SQL is sent.
 */
export type TextIndex = 'sqlite-fts5' | 'none';

export const textIndexOf = (db: Kysely<Database>): TextIndex =>
  db.getExecutor().adapter instanceof SqliteAdapter ? 'sqlite-fts5' : 'none';

/** The trigram index matches nothing shorter than three characters. */
const TRIGRAM = 3;

/**
 * The FTS5 query that narrows a search for q (q as one phrase, so nothing in it is query syntax),
 * or undefined when the index cannot narrow it: no index, or too short a text (such a text
 * matches most boxes anyway, and walking the sort order finds a page quickly).
 */
export function ftsPhrase(index: TextIndex, q: string): string | undefined {
  if (index !== 'sqlite-fts5' || [...q].length < TRIGRAM) return undefined;
  return `"${q.replace(/"/g, '""')}"`;
}

/** `boxes.id IN (boxes whose indexed text contains the bound phrase)`. */
export const containsPhrase = (
  phrase: string,
) => sql<boolean>`boxes.id in (select k.box_id from box_search_keys k where k.key in
  (select rowid from box_search where box_search match ${phrase}))`;
