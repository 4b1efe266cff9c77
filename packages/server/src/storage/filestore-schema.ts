/** Row types of the file store tables (see `migrations/2026-11-22-02-filestore.ts`). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the file store service
export interface FileStoreTables {}
