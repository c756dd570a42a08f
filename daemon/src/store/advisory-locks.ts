/**
 * PostgreSQL advisory lock keys, one per thing only one daemon may do at a time. Kept in one
 * place so that no two uses pick the same number.
 */
export const ADVISORY_LOCKS = {
  /** Migrating the schema (store/postgres.ts). */
  migrations: 0x626f7801,
  /** Being the daemon that runs the agent watchdog, garbage collection and scheduled mirrors. */
  leader: 0x626f7802,
  /** Registering an agent: the next number of the agents' list (agents/repository.ts, through inTurn). */
  agentNumbers: 0x626f7803,
} as const;
