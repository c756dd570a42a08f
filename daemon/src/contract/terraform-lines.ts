import type { ServerAccess } from './lan';

/**
 * What Terraform needs to use a workspace of this daemon (HCP Terraform's `cloud {}` block): the block, with
 * `hostname` as Terraform wants it (host[:port], no scheme), and the CLI configuration that gives Terraform a token
 * for that host (a `credentials` block: a `TF_TOKEN_…` variable cannot name a port). Pure, for the web UI.
 */

/** The host[:port] Terraform names this daemon by. */
export const terraformHostname = (server: ServerAccess): string => new URL(server.url).host;

/** The `terraform { cloud { … } }` block of a workspace. */
export function cloudBlock(server: ServerAccess, organization: string, workspace: string): string {
  return [
    'terraform {',
    '  cloud {',
    `    hostname     = "${terraformHostname(server)}"`,
    `    organization = "${organization}"`,
    '    workspaces {',
    `      name = "${workspace}"`,
    '    }',
    '  }',
    '}',
  ].join('\n');
}

/**
 * The shell lines that give Terraform a token for this daemon (a CLI configuration of its own, in
 * `TF_CLI_CONFIG_FILE`) and, on `--tls auto`, its CA (`SSL_CERT_FILE`, which Go reads in place of the system's CAs:
 * enough for this daemon, not for providers fetched from the internet in the same shell).
 */
export function terraformSetupLines(server: ServerAccess, token: string): string[] {
  return [
    `printf 'credentials "%s" {\\n  token = "%s"\\n}\\n' ${terraformHostname(server)} '${token}' > ~/.boxyard.tfrc`,
    'export TF_CLI_CONFIG_FILE=~/.boxyard.tfrc',
    ...(server.caFile ? [`export SSL_CERT_FILE=${server.caFile}`] : []),
  ];
}
