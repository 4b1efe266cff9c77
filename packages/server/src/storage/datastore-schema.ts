/** Row types of the data store tables (see `migrations/2026-11-22-01-datastore.ts`). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the data store service
export interface DataStoreTables {}
