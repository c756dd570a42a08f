import { Link } from 'react-router-dom';
import { cloudBlock, terraformSetupLines } from '../../../daemon/src/contract/terraform-lines';
import { TOKEN_PLACEHOLDER } from '../../../daemon/src/contract/client-lines';
import { useServerAccess } from '../api/server-access';
import { TOKENS_ANCHOR } from './tokens/api-tokens';
import { CopyField } from './ui';

/**
 * A workspace's Terraform `cloud {}` block (contract/terraform-lines.ts), folded under its name, with what Terraform
 * needs beside it: a token for this server and, under its own CA, that CA (the trust step is the workspaces' list's,
 * once for all).
 */
export function WorkspaceCloudBlock({ org, workspace }: { org: string; workspace: string }) {
  const { server, ready } = useServerAccess();
  if (!ready) return null;
  return (
    <details className="cloud-block">
      <summary>Terraform block</summary>
      <p className="muted small-text">Put this block in the Terraform configuration that uses workspace {workspace}:</p>
      <CopyField label={`Terraform cloud block of ${workspace}`} lines value={cloudBlock(server, org, workspace)} />
      <p className="muted small-text with-links">
        Terraform needs a token for this server: replace <code>{TOKEN_PLACEHOLDER}</code> with an API token (
        <Link to={`/settings#${TOKENS_ANCHOR}`}>Settings → API tokens</Link>), and run these lines in the shell you run
        Terraform from{server.caFile ? ', after the trust step above' : ''}.
      </p>
      <CopyField
        label={`Terraform setup for ${workspace}`}
        lines
        value={terraformSetupLines(server, TOKEN_PLACEHOLDER).join('\n')}
      />
      <p className="muted small-text">
        Boxyard keeps workspaces and their agent pools for HCP Terraform's clients (the tfe provider, go-tfe), but runs
        no plans yet: <code>terraform init</code> reaches this server with these lines, then stops at “Failed to read
        organization”, since Boxyard does not serve HCP Terraform's runs and state.
      </p>
    </details>
  );
}
