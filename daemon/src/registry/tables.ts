/** Tables of this feature, as Kysely sees them (filled in with the feature). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface RegistryTables {}
