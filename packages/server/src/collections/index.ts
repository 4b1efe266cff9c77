/** The collections kind (issue 39): what the rest of the server may import of it. */
export { createCollections, type Collections, type CollectionInfo } from './collections-service.js';
export type { Rules } from './collection-rules.js';
export type { RecordPage } from './record-list.js';
export type { RecordView } from './record-ops.js';
export { RECORD_EVENTS, type RecordEvent } from './record-events.js';
export { batchInput, definitionInput, recordQueryInput } from './collections-inputs.js';
export { makeRecordTables } from './records-repo.js';
