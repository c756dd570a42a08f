import fc from 'fast-check';
import {
  DummyDriver,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
  type ExpressionBuilder,
  type QueryCreator,
  type SelectQueryBuilder,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import { READ_ONLY_RAW, markedReadOnly, readsOnly, statementTables, type Kind } from './statement-tables';

/** A generated table: an id, and columns of any name. */
interface AnyRow {
  id: unknown;
  [column: string]: unknown;
}
/** Tables of any name (the tests generate statements, naming tables with strings), and `gone`: a delete's CTE. */
type AnyTables = Record<string, AnyRow> & { gone: AnyRow };
type AnySelect = SelectQueryBuilder<AnyTables, string, Record<string, unknown>>;

/** A Kysely that compiles only: the tree is all these tests look at. */
const db = new Kysely<AnyTables>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new SqliteIntrospector(k),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});
const tablesOf = (q: { compile(k: typeof db): { query: Parameters<typeof statementTables>[0] } }) =>
  statementTables(q.compile(db).query);
const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

const TABLES = ['boxes', 'users', 'organizations', 'box_versions', 'settings', 'agents'];
const COLUMNS = ['name', 'status', 'downloads', 'updated_at'];

/** A SELECT to generate: its FROM (a table or a subquery), joins, a CTE it joins, a subquery in its WHERE. */
interface Select {
  from: string | Select;
  joins: Array<{ table: string; left: boolean }>;
  cte?: Select;
  where?: Select;
}

const table = fc.constantFrom(...TABLES);
const select = (depth: number): fc.Arbitrary<Select> =>
  fc.record(
    {
      from: depth === 0 ? table : fc.oneof(table, select(depth - 1)),
      joins: fc.array(fc.record({ table, left: fc.boolean() }), { maxLength: 2 }),
      cte: depth === 0 ? fc.constant(undefined) : fc.option(select(depth - 1), { nil: undefined }),
      where: depth === 0 ? fc.constant(undefined) : fc.option(select(depth - 1), { nil: undefined }),
    },
    { requiredKeys: ['from', 'joins'] },
  );

/** Builds `s` as Kysely would be asked to, with the tables it names, each alias and CTE name fresh. */
function build(qc: QueryCreator<AnyTables>, s: Select, names = { n: 0 }): { q: AnySelect; reads: string[] } {
  const reads: string[] = [];
  const a = `a${names.n++}`;
  let creator = qc;
  let cteName: string | undefined;
  if (s.cte) {
    const c = build(db, s.cte, names);
    reads.push(...c.reads);
    cteName = `c${names.n++}`;
    creator = qc.with(cteName, () => c.q);
  }
  let q: AnySelect;
  if (typeof s.from === 'string') {
    reads.push(s.from);
    q = creator.selectFrom(`${s.from} as ${a}`);
  } else {
    const inner = build(db, s.from, names);
    reads.push(...inner.reads);
    q = creator.selectFrom(inner.q.as(a));
  }
  for (const j of s.joins) {
    reads.push(j.table);
    const alias = `j${names.n++}`;
    q = j.left
      ? q.leftJoin(`${j.table} as ${alias}`, `${alias}.id`, `${a}.id`)
      : q.innerJoin(`${j.table} as ${alias}`, `${alias}.id`, `${a}.id`);
  }
  if (cteName) q = q.innerJoin(cteName, `${cteName}.id`, `${a}.id`);
  if (s.where) {
    const sub = build(db, s.where, names);
    reads.push(...sub.reads);
    q = q.where(`${a}.id`, 'in', sub.q);
  }
  return { q: q.select(`${a}.id as id`), reads };
}

/** A write to generate, with what it writes. */
type Write =
  | {
      kind: 'insert';
      table: string;
      from?: Select;
      conflict: 'none' | 'nothing' | 'update';
      replace: 'no' | 'or replace' | 'replace into';
    }
  | { kind: 'update'; table: string; columns: string[]; where?: Select }
  | { kind: 'delete'; table: string; where?: Select }
  | { kind: 'cte delete'; table: string; thenSelect: Select };

const write: fc.Arbitrary<Write> = fc.oneof(
  fc.record({
    kind: fc.constant('insert' as const),
    table,
    from: fc.option(select(2), { nil: undefined }),
    conflict: fc.constantFrom('none' as const, 'nothing' as const, 'update' as const),
    replace: fc.constantFrom('no' as const, 'or replace' as const, 'replace into' as const),
  }),
  fc.record({
    kind: fc.constant('update' as const),
    table,
    columns: fc.uniqueArray(fc.constantFrom(...COLUMNS), { minLength: 1 }),
    where: fc.option(select(2), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('delete' as const), table, where: fc.option(select(2), { nil: undefined }) }),
  fc.record({ kind: fc.constant('cte delete' as const), table, thenSelect: select(1) }),
);

function buildWrite(w: Write) {
  if (w.kind === 'insert') {
    const sub = w.from ? build(db, w.from) : undefined;
    let q = w.replace === 'replace into' ? db.replaceInto(w.table) : db.insertInto(w.table);
    if (w.replace === 'or replace') q = q.orReplace();
    q = sub ? q.columns(['id']).expression(sub.q) : q.values({ id: 1 });
    if (w.conflict === 'nothing') q = q.onConflict((oc) => oc.column('id').doNothing());
    if (w.conflict === 'update') q = q.onConflict((oc) => oc.column('id').doUpdateSet({ name: 'x' }));
    const kinds: Kind[] = [
      'insert',
      ...(w.replace !== 'no' ? ['delete' as const] : []),
      ...(w.conflict === 'update' ? ['update' as const] : []),
    ];
    return { q, reads: sub?.reads ?? [], writes: [{ table: w.table, kinds }] };
  }
  if (w.kind === 'update') {
    const sub = w.where ? build(db, w.where) : undefined;
    let q = db.updateTable(w.table).set(Object.fromEntries(w.columns.map((c) => [c, 1])));
    if (sub) q = q.where('id', 'in', sub.q);
    return { q, reads: sub?.reads ?? [], writes: [{ table: w.table, kinds: ['update'], columns: w.columns }] };
  }
  if (w.kind === 'delete') {
    const sub = w.where ? build(db, w.where) : undefined;
    let q = db.deleteFrom(w.table);
    if (sub) q = q.where('id', 'in', sub.q);
    return { q, reads: sub?.reads ?? [], writes: [{ table: w.table, kinds: ['delete'] }] };
  }
  const then = build(
    db.with('gone', (qc) => qc.deleteFrom(w.table).returning('id')),
    w.thenSelect,
  );
  return {
    q: then.q.where('id', 'not in', (eb: ExpressionBuilder<AnyTables, string>) => eb.selectFrom('gone').select('id')),
    reads: then.reads,
    writes: [{ table: w.table, kinds: ['delete'] }],
  };
}

describe('statementTables: generated queries', () => {
  it('finds the tables a SELECT names: joins, subqueries in FROM and WHERE, CTE bodies; no CTE name, no write', () => {
    fc.assert(
      fc.property(select(3), (s) => {
        const { q, reads } = build(db, s);
        const found = tablesOf(q);
        expect(sorted(found.reads)).toEqual(sorted(reads));
        expect(found.writes).toEqual([]);
        expect(found.unknown).toBe(false);
        expect(found.raw).toBe(false);
      }),
      { seed: 41, numRuns: 500 },
    );
  });

  it("finds what a write writes and the tables it reads: INSERT … SELECT, ON CONFLICT, REPLACE, UPDATE's columns, a deleting CTE", () => {
    fc.assert(
      fc.property(write, (w) => {
        const { q, reads, writes } = buildWrite(w);
        const found = tablesOf(q);
        expect(found.writes).toEqual(writes);
        expect(sorted(found.reads)).toEqual(sorted(reads));
        expect(found.unknown).toBe(false);
      }),
      { seed: 41, numRuns: 500 },
    );
  });
});

describe('statementTables: what the tree cannot tell', () => {
  it('calls a raw statement or DDL unknown (it may write anything), and marks raw fragments', () => {
    expect(tablesOf(sql`update boxes set name = 'x'`)).toMatchObject({ unknown: true, writes: [] });
    expect(tablesOf(db.schema.createTable('t').addColumn('id', 'integer'))).toMatchObject({ unknown: true });
    const fragment = tablesOf(db.selectFrom('boxes').select(sql<string>`upper(name)`.as('n')));
    expect(fragment).toMatchObject({ reads: ['boxes'], raw: true, unknown: false });
    // Kysely's own raw nodes (an order's direction) are no raw SQL of the caller's.
    expect(tablesOf(db.selectFrom('boxes').selectAll().orderBy('name', 'desc'))).toMatchObject({ raw: false });
  });

  it('counts a table raw SQL names with sql.table() as read', () => {
    expect(
      tablesOf(
        db
          .selectFrom('boxes')
          .where(sql<boolean>`exists (select 1 from ${sql.table('box_versions')})`)
          .selectAll(),
      ).reads.sort(),
    ).toEqual(['box_versions', 'boxes']);
  });

  it('keeps a CTE name out only where the CTE is seen: a recursive one in its own body, a later one not in an earlier body', () => {
    const shadowing = db
      .with('boxes', (qc) => qc.selectFrom('users').select('id'))
      .selectFrom('boxes')
      .selectAll();
    expect(tablesOf(shadowing).reads).toEqual(['users']);
    const recursive = db
      .withRecursive('tree(id)', (qc) =>
        qc.selectFrom('organizations').select('id').unionAll(qc.selectFrom('tree').select('id')),
      )
      .selectFrom('tree')
      .selectAll();
    expect(tablesOf(recursive).reads).toEqual(['organizations']);
    const later = db
      .with('a', (qc) => qc.selectFrom('b').select('id'))
      .with('b', (qc) => qc.selectFrom('users').select('id'))
      .selectFrom('a')
      .selectAll();
    expect(tablesOf(later).reads.sort()).toEqual(['b', 'users']);
  });

  it('a statement marked readsOnly writes nothing, the same text unmarked may write anything', () => {
    const compiled = sql`select 1`.compile(db);
    expect(markedReadOnly(readsOnly(compiled))).toBe(true);
    expect(markedReadOnly(compiled)).toBe(false);
    expect(READ_ONLY_RAW).toMatchObject({ writes: [], unknown: false });
  });
});
