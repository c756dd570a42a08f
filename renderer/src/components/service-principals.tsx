import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { createServicePrincipal, listServicePrincipals, revokeServicePrincipal } from '../api/accounts';
import { useSession } from '../api/session';
import { queryKeys } from '../api/query-keys';
import { ServicePrincipalName } from '../../../daemon/src/contract/bodies/accounts';
import { TokenSection } from './tokens/token-section';
import { CopyField } from './ui';

const NAMING = { rule: ServicePrincipalName, label: 'Name', button: 'Create service principal' };

/**
 * An organization's service principals, for its owners: a client id and secret that publish to this organization only,
 * exchanged at POST /oauth2/token (HCP's sign-in: Packer's vagrant-registry, vagrant cloud with HCP_CLIENT_ID). A new
 * one's secret is shown once, with its client id beside it; revoking one ends its tokens at once.
 */
export function ServicePrincipals({ org }: { org: string }) {
  const { api } = useSession();
  const key = queryKeys.servicePrincipals(org);
  const [clientId, setClientId] = useState<string | null>(null);
  const principals = useQuery({
    queryKey: key,
    queryFn: () => listServicePrincipals(api, org),
    select: (ps) =>
      ps.map((p) => ({ id: p.client_id, description: p.name, createdAt: p.created_at, lastUsedAt: p.last_used_at })),
  });
  const create = async (name: string) => {
    const made = await createServicePrincipal(api, org, name);
    setClientId(made.client_id);
    return made.client_secret;
  };
  return (
    <>
      <TokenSection
        title="Service principals"
        tokens={principals}
        form={{ label: 'New service principal', field: 'service_principal_name' }}
        naming={NAMING}
        create={create}
        revoke={(id) => revokeServicePrincipal(api, org, id)}
        secretLabel="Client secret"
        revokeWarning="Revoke this service principal (its tokens stop at once)"
        changes={{ created: [key], revoked: [key] }}
        usage={
          <>
            A client id and secret that publish boxes to {org} and nothing else, for HCP's sign-in (
            <code>HCP_CLIENT_ID</code>, <code>HCP_CLIENT_SECRET</code>, <code>HCP_AUTH_URL</code>): Packer's
            vagrant-registry post-processor and <code>vagrant cloud</code>. Its tokens last an hour.
          </>
        }
      />
      {clientId && (
        <div className="secret">
          <CopyField label="Client id" value={clientId} />
          <button type="button" className="link" onClick={() => setClientId(null)}>
            Hide the client id
          </button>
        </div>
      )}
    </>
  );
}
