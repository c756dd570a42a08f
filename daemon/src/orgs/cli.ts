import { Option, type Command } from 'commander';
import { ORGANIZATION_ROLES } from '../contract/wire/accounts';
import type { Deps } from '../deps';
import { DATA_HELP, print, type WithDeps } from '../auth/cli-accounts';

const named = async (deps: Deps, name: string) => {
  const org = await deps.orgs.named(name);
  if (!org) throw new Error(`organization ${name} not found`);
  return org;
};

/**
 * `boxyard org …`: on the data folder directly (the daemon may run meanwhile), through the same OrgService as the APIs.
 */
export function orgCommands(program: Command, withDeps: WithDeps): void {
  const org = program.command('org').description('manage organizations');
  org
    .command('create <name>')
    .option('--data <dir>', DATA_HELP)
    .requiredOption('--owner <username>')
    .option('--email <email>')
    .action((name: string, opts: Record<string, unknown>) =>
      withDeps(opts, async (deps) => {
        const owner = await deps.accounts.userNamed(opts.owner as string);
        await deps.orgs.create({ name, email: opts.email as string | undefined }, owner);
        print(`created organization ${name} owned by ${owner.username}`);
      }),
    );
  org
    .command('list')
    .option('--data <dir>', DATA_HELP)
    .action((opts) =>
      withDeps(opts, async (deps) => {
        for (const g of await deps.orgs.listAll()) print(g.name);
      }),
    );
  org
    .command('add-member <org> <username>')
    .description('add a member, or change their role (the last owner stays an owner)')
    .option('--data <dir>', DATA_HELP)
    .addOption(new Option('--role <role>', 'owner or member').choices(ORGANIZATION_ROLES).default('member'))
    .action((name: string, username: string, opts: Record<string, unknown>) =>
      withDeps(opts, async (deps) => {
        const role = opts.role === 'owner' ? 'owner' : 'member';
        await deps.orgs.setMember(await named(deps, name), username, role);
        print(`${username} is now ${role === 'owner' ? 'an owner' : 'a member'} of ${name}`);
      }),
    );
  org
    .command('remove-member <org> <username>')
    .description('remove a member (refused for the last owner)')
    .option('--data <dir>', DATA_HELP)
    .action((name: string, username: string, opts: Record<string, unknown>) =>
      withDeps(opts, async (deps) => {
        await deps.orgs.removeMember(await named(deps, name), username);
        print(`removed ${username} from ${name}`);
      }),
    );
}
