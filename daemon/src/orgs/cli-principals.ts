import type { Command } from 'commander';
import type { Deps } from '../deps';
import { DATA_HELP, print, type WithDeps } from '../auth/cli-accounts';
import { ServicePrincipalName } from '../contract/bodies/accounts';
import { principalSummary } from '../auth/service-principals/service';

const organization = async (deps: Deps, name: string) => {
  const org = await deps.orgs.named(name);
  if (!org) throw new Error(`organization ${name} not found`);
  return org;
};

/**
 * `boxyard service-principal …`: an organization's client ids and secrets, on the data folder directly (the daemon
 * may run meanwhile), through the same service as `/api/boxyard/organizations/:name/service-principals`. Whoever
 * may open the data folder may do anything an administrator may.
 */
export function servicePrincipalCommands(program: Command, withDeps: WithDeps): void {
  const sp = program
    .command('service-principal')
    .description("manage an organization's service principals (client credentials for POST /oauth2/token)");
  sp.command('create <org>')
    .description('make a client id and secret that publish to the organization; the secret is shown only now')
    .requiredOption('--name <name>', 'what it is for, e.g. "packer on ci"')
    .option('--data <dir>', DATA_HELP)
    .option('--json', 'print {"client_id","client_secret"}')
    .action((orgName: string, opts: Record<string, unknown>) =>
      withDeps(opts, async (deps) => {
        const name = ServicePrincipalName.safeParse(opts.name);
        if (!name.success) throw new Error(`--name: ${name.error.issues[0]?.message ?? 'invalid'}`);
        const org = await organization(deps, orgName);
        const { principal, secret } = await deps.principals.create(org.id, name.data);
        if (opts.json) print(JSON.stringify({ client_id: principal.client_id, client_secret: secret }));
        else print(`client id:     ${principal.client_id}\nclient secret: ${secret}\n(the secret is not shown again)`);
      }),
    );
  sp.command('list <org>')
    .option('--data <dir>', DATA_HELP)
    .option('--json', 'print a JSON array')
    .action((orgName: string, opts: Record<string, unknown>) =>
      withDeps(opts, async (deps) => {
        const list = (await deps.principals.list((await organization(deps, orgName)).id)).map(principalSummary);
        if (opts.json) return print(JSON.stringify(list));
        for (const p of list)
          print(`${p.client_id}\t${p.name}\tcreated ${p.created_at}\tlast used ${p.last_used_at ?? 'never'}`);
      }),
    );
  sp.command('revoke <org> <client_id>')
    .description('delete the principal: its tokens stop working at once')
    .option('--data <dir>', DATA_HELP)
    .action((orgName: string, clientId: string, opts: Record<string, unknown>) =>
      withDeps(opts, async (deps) => {
        const org = await organization(deps, orgName);
        await deps.principals.revoke(org.id, org.name, clientId);
        print(`revoked ${clientId} of ${org.name}`);
      }),
    );
}
