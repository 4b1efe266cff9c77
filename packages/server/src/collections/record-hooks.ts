import type { RecordView } from './record-ops.js';

/**
 * The records' hook points (issue 40, docs/hooks.md), merged into core/hooks.ts's open maps.
 * A before-hook gets the data as sent (`input`: the record's fields; an update's changed fields
 * alone), before the rule and the schema check it (record-ops.ts), and may change or refuse it;
 * an after-hook gets the record as stored (a delete's: as it was). `record.answer` shapes what is sent.
 */
declare module '../core/hooks.js' {
  interface HookPoints {
    'record.create': { collection: string; input: Record<string, unknown> };
    'record.update': { collection: string; id: string; input: Record<string, unknown> };
    'record.delete': { collection: string; id: string; input: { id: string } };
    /**
     * Before a record is sent to its caller (a get, a page's records, a create's or an update's
     * answer; collections-service.ts `answered`): `input` is the record as it would be sent, which
     * the hook may change or replace (hide a field, add one it computes).
     */
    'record.answer': { collection: string; input: RecordView };
  }
  interface AfterHookPoints {
    'record.create': { collection: string; record: RecordView };
    'record.update': { collection: string; record: RecordView };
    'record.delete': { collection: string; record: RecordView };
  }
}
