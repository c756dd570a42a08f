import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type SqliteStore } from './db';
import { containsPattern, LIKE_ESCAPE } from './like';

let dir: string;
let store: SqliteStore;
const KEYS = ['100%', '100 per cent', 'a_b', 'axb', 'a\\b', 'ab', 'plain'];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'boxyard-like-'));
  store = openStore(join(dir, 'db.sqlite'));
  for (const key of KEYS) await store.db.insertInto('settings').values({ key, value: '' }).execute();
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const matching = async (text: string) =>
  (
    await store.db
      .selectFrom('settings')
      .select('key')
      .where(sql<boolean>`key like ${containsPattern(text)} ${LIKE_ESCAPE}`)
      .orderBy('key')
      .execute()
  ).map((r) => r.key);

describe('containsPattern with LIKE_ESCAPE', () => {
  it.each([
    ['%', ['100%']],
    ['_', ['a_b']],
    ['\\', ['a\\b']],
    ['a_b', ['a_b']],
    ['0%', ['100%']],
    ['b', ['a\\b', 'a_b', 'ab', 'axb']],
    ['', [...KEYS].sort()],
  ])('%j is matched literally, anywhere in the text', async (text, want) => {
    expect(await matching(text)).toEqual(want);
  });
});
