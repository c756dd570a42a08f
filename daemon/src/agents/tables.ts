import type { AgentStatus } from '../contract/wire/jsonapi';

export interface AgentsTable {
  id: string;
  pool_id: string;
  token_id: string | null;
  name: string | null;
  status: AgentStatus;
  ip_address: string;
  last_ping_at: string;
  created_at: string;
  seq: number;
}

/** Agents, as Kysely sees them. */
export interface AgentTables {
  agents: AgentsTable;
}
