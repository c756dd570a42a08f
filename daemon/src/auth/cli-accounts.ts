import { Option, type Command } from 'commander';
import type { Deps } from '../deps';
import { readNewPassword } from './cli-password';

type WithDeps = <T>(opts: Record<string, unknown>, fn: (d: Deps) => Promise<T>) => Promise<T>;

const DATA_HELP = 'data folder (default: the platform app-data folder; env BOXYARD_DATA)';
const print = (line: string): void => void process.stdout.write(`${line}\n`);

/** Commands that change a password: `--password-stdin`, else a prompt; `--password` only says why not. */
function withPasswordInput(c: Command): Command {
  return c.option('--data <dir>', DATA_HELP)
    .option('--password-stdin', 'read the password from standard input (one line) instead of asking for it')
    .addOption(new Option('--password <password>').hideHelp());
}

async function passwordFrom(o: Record<string, unknown>): Promise<string> {
  if (o.password !== undefined) {
    throw new Error('passwords are not taken on the command line (ps and the shell history would show them): leave out --password to be asked, or pipe it in with --password-stdin');
  }
  return readNewPassword(o.passwordStdin === true);
}

/** `boxyard user …` and `boxyard org …`: on the data folder directly (the daemon may run meanwhile). */
export function accountCommands(program: Command, withDeps: WithDeps): void {
  const user = program.command('user').description('manage users');
  withPasswordInput(user.command('create <username>').description('create a user (password: asked for, or --password-stdin; at least 12 characters)'))
    .option('--email <email>').option('--admin', 'make an administrator')
    .action(async (name: string, o: Record<string, unknown>) => {
      const password = await passwordFrom(o);
      await withDeps(o, async (d) => {
        const u = await d.accounts.createUser({ username: name, password, email: o.email as string | undefined, admin: !!o.admin });
        print(`created user ${u.username}`);
      });
    });
  user.command('list').option('--data <dir>', DATA_HELP).action((o) => withDeps(o, async (d) => {
    for (const u of await d.accounts.listUsers()) print(`${u.username}${u.is_admin ? ' (admin)' : ''}${u.email ? ` <${u.email}>` : ''}`);
  }));
  withPasswordInput(user.command('password <username>').description("set a user's password (signs out all of their API tokens)"))
    .action(async (name: string, o: Record<string, unknown>) => {
      const password = await passwordFrom(o);
      await withDeps(o, async (d) => {
        await d.accounts.resetPassword(await d.accounts.userNamed(name), password);
        print(`password of ${name} changed; their API tokens were revoked`);
      });
    });
  user.command('admin <username>').description('make a user an administrator (--remove: no longer one)')
    .option('--data <dir>', DATA_HELP).option('--remove', 'take administration away (refused for the last administrator)')
    .action((name: string, o: Record<string, unknown>) => withDeps(o, async (d) => {
      await d.accounts.setAdmin(await d.accounts.userNamed(name), !o.remove);
      print(`${name} is ${o.remove ? 'no longer' : 'now'} an administrator`);
    }));
  user.command('reset-two-factor <username>').description('switch off a user\'s two-factor methods (a lost phone or authenticator)')
    .option('--data <dir>', DATA_HELP)
    .action((name: string, o: Record<string, unknown>) => withDeps(o, async (d) => {
      await d.twoFactor.reset(await d.accounts.userNamed(name));
      print(`two-factor of ${name} switched off; they sign in with the password and may set it up again`);
    }));
  user.command('delete <username>').description('delete a user (refused for the last administrator and an organization\'s last owner)')
    .option('--data <dir>', DATA_HELP)
    .action((name: string, o: Record<string, unknown>) => withDeps(o, async (d) => {
      await d.accounts.deleteUser(await d.accounts.userNamed(name));
      print(`deleted user ${name}`);
    }));

  orgCommands(program, withDeps);
}

function orgCommands(program: Command, withDeps: WithDeps): void {
  const org = program.command('org').description('manage organizations');
  const named = async (d: Deps, name: string) => {
    const g = await d.accounts.organizationNamed(name);
    if (!g) throw new Error(`organization ${name} not found`);
    return g;
  };
  org.command('create <name>').option('--data <dir>', DATA_HELP).requiredOption('--owner <username>').option('--email <email>')
    .action((name: string, o: Record<string, unknown>) => withDeps(o, async (d) => {
      const owner = await d.accounts.userNamed(o.owner as string);
      await d.accounts.createOrganization({ name, email: o.email as string | undefined }, owner);
      print(`created organization ${name} owned by ${owner.username}`);
    }));
  org.command('list').option('--data <dir>', DATA_HELP).action((o) => withDeps(o, async (d) => {
    const admin = (await d.accounts.listUsers()).find((u) => u.is_admin);
    if (admin) for (const g of await d.accounts.listOrganizations({ user: admin, tokenId: '' })) print(g.name);
  }));
  org.command('add-member <org> <username>').description('add a member, or change their role (the last owner stays an owner)')
    .option('--data <dir>', DATA_HELP)
    .addOption(new Option('--role <role>', 'owner or member').choices(['owner', 'member']).default('member'))
    .action((name: string, username: string, o: Record<string, unknown>) => withDeps(o, async (d) => {
      const role = o.role === 'owner' ? 'owner' : 'member';
      await d.accounts.setMember(await named(d, name), username, role);
      print(`${username} is now ${role === 'owner' ? 'an owner' : 'a member'} of ${name}`);
    }));
  org.command('remove-member <org> <username>').description('remove a member (refused for the last owner)').option('--data <dir>', DATA_HELP)
    .action((name: string, username: string, o: Record<string, unknown>) => withDeps(o, async (d) => {
      await d.accounts.removeMember(await named(d, name), username);
      print(`removed ${username} from ${name}`);
    }));
}
