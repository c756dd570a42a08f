import { sql } from 'kysely';

/**
 * The one escaping rule for LIKE patterns made from what a user typed: `%`, `_` and `\` in the
 * text match themselves. Each is escaped with `\`, and every LIKE that takes such a pattern
 * names that character with `LIKE_ESCAPE`: SQLite has no default escape character, so the
 * clause is always spelled out (portable to PostgreSQL too).
 */
const escaped = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);
export const containsPattern = (text: string): string => `%${escaped(text)}%`;

/** Follows `LIKE <pattern>` for a pattern from `containsPattern`. */
export const LIKE_ESCAPE = sql.raw(`escape '\\'`);

/** `column LIKE '%text%' ESCAPE '\'`: what a user typed matches itself, `%` and `_` included. */
export const contains = (column: string, text: string) =>
  sql<boolean>`${sql.ref(column)} like ${containsPattern(text)} ${LIKE_ESCAPE}`;

/** `column LIKE 'text%' ESCAPE '\'`: names that start with what a user typed. */
export const startsWith = (column: string, text: string) =>
  sql<boolean>`${sql.ref(column)} like ${`${escaped(text)}%`} ${LIKE_ESCAPE}`;
