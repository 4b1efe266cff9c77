/** The collections kind (issue 39): what the rest of the server may import of it. */
export {
  createCollections,
  type Collections,
  type CollectionInfo,
  type CollectionVersion,
} from './collections-service.js';
export type { Rules } from './collection-rules.js';
export type { RecordPage } from './record-list.js';
export { recordView, type RecordView } from './record-ops.js';
// The records' hook points (declaration merging into core/hooks.ts), wherever the kind is imported.
import './record-hooks.js';
export {
  type CarriedRecord,
  fieldsRead,
  type Hop,
  isRecordEvent,
  RECORD_EVENTS,
  type RecordEvent,
  relationChains,
  relationId,
} from './record-events.js';
export type { CollectionState } from './collection-state.js';
export { queryContext } from './collection-access.js';
export { type CheckedFilter, compileMatcher, parseFilter, prepareFilter, type StoredRecord } from './query/index.js';
export { batchInput, definitionInput, recordQueryInput, recordReadInput } from './collections-inputs.js';
export { makeRecordTables } from './record-tables-repo.js';
export { defineCollection, type CollectionDeclaration } from './define-collection.js';
export { ajvFieldProblems } from './record-validator.js';
