import { Option, type Command } from 'commander';
import { ORGANIZATION_ROLES } from '../contract/wire/accounts';
import type { Deps } from '../deps';
import { DATA_HELP, print, type WithDeps } from '../auth/cli-accounts';

const named = async (d: Deps, name: string) => {
  const org = await d.orgs.named(name);
  if (!org) throw new Error(`organization ${name} not found`);
  return org;
};

/** `boxyard org …`: on the data folder directly (the daemon may run meanwhile), through the same OrgService as the APIs. */
export function orgCommands(program: Command, withDeps: WithDeps): void {
  const org = program.command('org').description('manage organizations');
  org
    .command('create <name>')
    .option('--data <dir>', DATA_HELP)
    .requiredOption('--owner <username>')
    .option('--email <email>')
    .action((name: string, o: Record<string, unknown>) =>
      withDeps(o, async (d) => {
        const owner = await d.accounts.userNamed(o.owner as string);
        await d.orgs.create({ name, email: o.email as string | undefined }, owner);
        print(`created organization ${name} owned by ${owner.username}`);
      }),
    );
  org
    .command('list')
    .option('--data <dir>', DATA_HELP)
    .action((o) =>
      withDeps(o, async (d) => {
        for (const g of await d.orgs.listAll()) print(g.name);
      }),
    );
  org
    .command('add-member <org> <username>')
    .description('add a member, or change their role (the last owner stays an owner)')
    .option('--data <dir>', DATA_HELP)
    .addOption(new Option('--role <role>', 'owner or member').choices(ORGANIZATION_ROLES).default('member'))
    .action((name: string, username: string, o: Record<string, unknown>) =>
      withDeps(o, async (d) => {
        const role = o.role === 'owner' ? 'owner' : 'member';
        await d.orgs.setMember(await named(d, name), username, role);
        print(`${username} is now ${role === 'owner' ? 'an owner' : 'a member'} of ${name}`);
      }),
    );
  org
    .command('remove-member <org> <username>')
    .description('remove a member (refused for the last owner)')
    .option('--data <dir>', DATA_HELP)
    .action((name: string, username: string, o: Record<string, unknown>) =>
      withDeps(o, async (d) => {
        await d.orgs.removeMember(await named(d, name), username);
        print(`removed ${username} from ${name}`);
      }),
    );
}
