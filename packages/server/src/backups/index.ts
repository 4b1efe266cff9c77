/** The backups as the server makes them (backups-service.ts), for the pages and /metrics. */
export { createBackups, type ArchiveView, type BackupHealth, type Backups } from './backups-service.js';
export type { BackupRun } from '../storage/backup-run-store.js';
