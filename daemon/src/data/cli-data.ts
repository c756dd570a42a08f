import type { Command } from 'commander';
import { databaseFile, type Config } from '../config';
import { formatBytes } from '../contract/bytes';
import { backup } from './backup';
import { check, type Problem } from './check';
import { restore } from './restore';

type ConfigOf = (opts: Record<string, unknown>) => Config;
const DATA_HELP = 'data folder (default: the platform app-data folder; env BOXYARD_DATA)';
const print = (line: string): void => void process.stdout.write(`${line}\n`);
const amount = (files: number, bytes: number) =>
  `${files} file${files === 1 ? '' : 's'}, ${bytes} bytes (${formatBytes(bytes)})`;

/**
 * The config, if its state is the data folder's own: these commands copy and verify its SQLite
 * file and blob files. State in PostgreSQL and a bucket is backed up with their own tools.
 */
function embedded(config: Config, command: string): Config {
  if (!config.database && !config.blobs) return config;
  const where = [config.database && 'PostgreSQL (BOXYARD_DATABASE_URL)', config.blobs && 'an S3 bucket (BOXYARD_BLOBS)']
    .filter(Boolean)
    .join(' and ');
  throw new Error(
    `boxyard ${command} works on a data folder's own database and box files, but this Boxyard keeps them in ${where}. Back those up with pg_dump and the bucket's versioning or replication instead (docs/deploy.md, "Backup").`,
  );
}

/**
 * `boxyard backup | restore | check`: on the data folder itself, no daemon needed (docs/operations-and-security.md).
 */
export function dataCommands(program: Command, configOf: ConfigOf): void {
  program
    .command('backup <dest>')
    .description('copy the data folder (database, blobs, key files) into an empty folder, while the daemon serves')
    .option('--data <dir>', DATA_HELP)
    .action(async (dest: string, opts: Record<string, unknown>) => {
      const config = embedded(configOf(opts), 'backup');
      const s = await backup({
        dataDir: config.dataDir,
        databaseFile: databaseFile(config),
        dest,
        onSnapshot: (n) => {
          if (n > 1) print(`a blob was removed by garbage collection meanwhile: database snapshot ${n}`);
        },
      });
      for (const why of s.skipped) print(`left out ${why}`);
      print(
        `backed up ${config.dataDir} into ${dest}: ${amount(s.files, s.bytes)}; the database and ${s.blobs} blob${s.blobs === 1 ? '' : 's'}, each with its sha256 in boxyard-backup.json`,
      );
    });

  program
    .command('restore <src>')
    .description('restore a backup into an empty (or new) data folder, verifying every file')
    .option('--data <dir>', DATA_HELP)
    .action(async (src: string, opts: Record<string, unknown>) => {
      const config = embedded(configOf(opts), 'restore');
      const s = await restore({ src, dataDir: config.dataDir, databaseFile: databaseFile(config) });
      print(
        `restored ${amount(s.files, s.bytes)} from ${src} (taken ${s.createdAt} by Boxyard ${s.version}) into ${config.dataDir}; every file matched its sha256`,
      );
      print(`start the daemon on it: boxyard serve --data ${config.dataDir}`);
    });

  program
    .command('check')
    .description('verify every blob against its sha256 and every row against its blob; exit 1 on a problem')
    .option('--data <dir>', DATA_HELP)
    .option('--repair', 'move corrupt blobs to quarantine/ and make rows stop offering missing or corrupt blobs')
    .action(async (opts: Record<string, unknown>) => {
      const config = embedded(configOf(opts), 'check');
      const repair = opts.repair === true;
      const onProblem = (p: Problem) => {
        print(`problem: ${p.text}`);
        if (p.repaired) print(`  repaired: ${p.repaired}`);
      };
      const r = await check({ dataDir: config.dataDir, databaseFile: databaseFile(config), repair, onProblem });
      const found = r.problems.length;
      const rows = r.databaseDamaged
        ? 'no rows (the database is damaged)'
        : `${r.rows} row${r.rows === 1 ? '' : 's'} naming blobs`;
      print(
        `checked ${r.blobs} blob${r.blobs === 1 ? '' : 's'} (${r.bytes} bytes, ${formatBytes(r.bytes)}) and ${rows}: ${found === 0 ? 'no problems' : `${found} problem${found === 1 ? '' : 's'}`}`,
      );
      if (r.unresolved === 0) {
        if (repair && found) print('repaired: everything left is consistent');
        return;
      }
      if (r.databaseDamaged)
        print(
          `the database cannot be repaired: stop the daemon and restore a backup (boxyard restore --data NEWDIR BACKUP)`,
        );
      else if (repair) print(`${r.unresolved} problem${r.unresolved === 1 ? '' : 's'} left that repair could not fix`);
      else
        print(
          `to repair: boxyard check --data ${config.dataDir} --repair (see docs/operations-and-security.md, "Backup, restore and check")`,
        );
      process.exitCode = 1;
    });
}
