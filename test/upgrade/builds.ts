import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The last build at each earlier schema, from main's history: the commit before the next migration landed (or, where
 * that commit does not build, the last one before it that does). Builds of 11-25 ran a migration named
 * 013-provider-downloads.sql, later renumbered 015 (store/migrations.ts RENUMBERED): the 013 build ran it alone, the
 * 014 build beside 013-box-name-sort.sql.
 * From schema 016 a build also ran on PostgreSQL. make-fixtures.ts makes a fixture from each; upgrade.test.ts
 * serves each with today's daemon.
 */
export interface Build {
  /** The last migration the build knew. */
  schema: string;
  commit: string;
  postgres?: boolean;
}

export const BUILDS: Build[] = [
  { schema: '001', commit: '71a0cc4' },
  { schema: '002', commit: 'bd1ee0b' },
  { schema: '004', commit: 'e240f9d' },
  { schema: '005', commit: 'bdd71aa' },
  { schema: '006', commit: '8fe1011' },
  { schema: '007', commit: 'fe9bdb7' },
  { schema: '008', commit: '3c4d759' },
  { schema: '009', commit: '1b29f88' },
  { schema: '010', commit: 'afe55f9' },
  { schema: '011', commit: '53946fc' },
  { schema: '012', commit: '7e6a0f9' },
  { schema: '013', commit: '51880c3' },
  { schema: '014', commit: '491066c' },
  { schema: '015', commit: 'dd23800' },
  { schema: '016', commit: 'd9504a9', postgres: true },
  { schema: '017', commit: '07723af', postgres: true },
  { schema: '018', commit: 'e5b634b', postgres: true },
  { schema: '019', commit: '58aa35e', postgres: true },
  { schema: '020', commit: '35b7f9e', postgres: true },
  { schema: '021', commit: 'f05ee24', postgres: true },
  { schema: '022', commit: 'c9e6898', postgres: true },
  { schema: '023', commit: '9cb8264', postgres: true },
  { schema: '024', commit: 'e37ef95', postgres: true },
];

export const FIXTURES = join(fileURLToPath(new URL('.', import.meta.url)), 'fixtures');

export const fixtureName = (b: Build, dialect: 'sqlite' | 'postgres') => `${dialect}-${b.schema}-${b.commit}.tar.gz`;
