import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { Option, type Command } from 'commander';
import type { Deps } from '../deps';

/** Runs a command's work on the data folder's services (cli.ts opens and closes them). */
export type WithDeps = <T>(opts: Record<string, unknown>, fn: (deps: Deps) => Promise<T>) => Promise<T>;

export const DATA_HELP = 'data folder (default: the platform app-data folder; env BOXYARD_DATA)';
export const print = (line: string): void => void process.stdout.write(`${line}\n`);

/** Commands that change a password: `--password-stdin`, else a prompt; `--password` only says why not. */
function withPasswordInput(c: Command): Command {
  return c
    .option('--data <dir>', DATA_HELP)
    .option('--password-stdin', 'read the password from standard input (one line) instead of asking for it')
    .addOption(new Option('--password <password>').hideHelp());
}

async function passwordFrom(opts: Record<string, unknown>): Promise<string> {
  if (opts.password !== undefined) {
    throw new Error(
      'passwords are not taken on the command line (ps and the shell history would show them): leave out --password to be asked, or pipe it in with --password-stdin',
    );
  }
  return readNewPassword(opts.passwordStdin === true);
}

/** `boxyard user …`: on the data folder directly (the daemon may run meanwhile). `boxyard org …`: orgs/cli.ts. */
export function accountCommands(program: Command, withDeps: WithDeps): void {
  const user = program.command('user').description('manage users');
  withPasswordInput(
    user
      .command('create <username>')
      .description('create a user (password: asked for, or --password-stdin; at least 12 characters)'),
  )
    .option('--email <email>')
    .option('--admin', 'make an administrator')
    .action(async (name: string, opts: Record<string, unknown>) => {
      const password = await passwordFrom(opts);
      await withDeps(opts, async (deps) => {
        const u = await deps.accounts.createUser({
          username: name,
          password,
          email: opts.email as string | undefined,
          admin: !!opts.admin,
        });
        print(`created user ${u.username}`);
      });
    });
  user
    .command('list')
    .option('--data <dir>', DATA_HELP)
    .action((opts) =>
      withDeps(opts, async (deps) => {
        for (const u of await deps.accounts.listUsers())
          print(`${u.username}${u.is_admin ? ' (admin)' : ''}${u.email ? ` <${u.email}>` : ''}`);
      }),
    );
  withPasswordInput(
    user.command('password <username>').description("set a user's password (signs out all of their API tokens)"),
  ).action(async (name: string, opts: Record<string, unknown>) => {
    const password = await passwordFrom(opts);
    await withDeps(opts, async (deps) => {
      await deps.accounts.resetPassword(await deps.accounts.userNamed(name), password);
      print(`password of ${name} changed; their API tokens were revoked`);
    });
  });
  user
    .command('admin <username>')
    .description('make a user an administrator (--remove: no longer one)')
    .option('--data <dir>', DATA_HELP)
    .option('--remove', 'take administration away (refused for the last administrator)')
    .action((name: string, opts: Record<string, unknown>) =>
      withDeps(opts, async (deps) => {
        await deps.accounts.setAdmin(await deps.accounts.userNamed(name), !opts.remove);
        print(`${name} is ${opts.remove ? 'no longer' : 'now'} an administrator`);
      }),
    );
  user
    .command('reset-two-factor <username>')
    .description("switch off a user's two-factor methods (a lost phone or authenticator)")
    .option('--data <dir>', DATA_HELP)
    .action((name: string, opts: Record<string, unknown>) =>
      withDeps(opts, async (deps) => {
        await deps.twoFactor.reset(await deps.accounts.userNamed(name));
        print(`two-factor of ${name} switched off; they sign in with the password and may set it up again`);
      }),
    );
  user
    .command('delete <username>')
    .description("delete a user (refused for the last administrator and an organization's last owner)")
    .option('--data <dir>', DATA_HELP)
    .action((name: string, opts: Record<string, unknown>) =>
      withDeps(opts, async (deps) => {
        await deps.accounts.deleteUser(await deps.accounts.userNamed(name));
        print(`deleted user ${name}`);
      }),
    );
}

/**
 * Reads a new password for `boxyard user create | password`: from standard input with
 * `--password-stdin` (one line; scripts pipe it in, as `docker login --password-stdin` does), else
 * from a prompt on the terminal, typed twice, not echoed. Never from the command line, where `ps`
 * and the shell history would show it.
 */
export async function readNewPassword(
  fromStdin: boolean,
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): Promise<string> {
  if (fromStdin) return readAll(input);
  if (!input.isTTY) {
    throw new Error(
      'no terminal to ask for the password on: pipe it in with --password-stdin (for example: printf %s "$PASSWORD" | boxyard user …)',
    );
  }
  const [first, second] = await askHidden(['New password: ', 'Repeat the password: '], input, output);
  if (first !== second) throw new Error('the two passwords differ; nothing was changed');
  return first;
}

async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024)
      throw new Error('standard input is longer than a password (64 KiB); pipe in only the password');
    chunks.push(Buffer.from(chunk as Buffer));
  }
  // One trailing line break is the end of the line, not part of the password (`echo "$PW" | …`).
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Lines from the terminal without echoing what is typed: one readline for all, so typed-ahead lines are kept. */
async function askHidden(questions: string[], input: NodeJS.ReadStream, output: NodeJS.WriteStream): Promise<string[]> {
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input, output: silent, terminal: true });
  const cancelled = new Promise<never>((_, reject) =>
    rl.once('SIGINT', () => reject(new Error('cancelled; nothing was changed'))),
  );
  const answers: string[] = [];
  try {
    for (const q of questions) {
      output.write(q);
      answers.push(await Promise.race([new Promise<string>((resolve) => rl.question('', resolve)), cancelled]));
      output.write('\n');
    }
    return answers;
  } finally {
    rl.close();
  }
}
