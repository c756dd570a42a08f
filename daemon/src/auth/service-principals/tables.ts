/** An organization's client id and secret (migration 025), exchanged at POST /oauth2/token for an hour's token. */
export interface ServicePrincipalsTable {
  id: string;
  client_id: string;
  /** sha256 of the client secret, which is shown once and never stored. */
  secret_hash: string;
  organization_id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/** The bearer tokens a principal was given: sha256 of each, and when it ends. Deleted with the principal. */
export interface ServicePrincipalTokensTable {
  id: string;
  principal_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
}

export interface ServicePrincipalTables {
  service_principals: ServicePrincipalsTable;
  service_principal_tokens: ServicePrincipalTokensTable;
}
