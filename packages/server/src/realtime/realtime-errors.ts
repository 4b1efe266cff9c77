import { defineErrors } from '../core/errors.js';

/** The live changes' own refusals (docs/errors.md, docs/realtime.md). */
export const realtimeErrors = defineErrors({
  unknown_stream: {
    kind: 'not_found',
    message: 'No stream of that client id is open here; open one first (GET /api/realtime).',
  },
  unknown_store: { kind: 'not_found', message: 'There is no store of that name.' },
  too_many_streams: { kind: 'rate_limited', message: 'Too many open streams; close one first.' },
  too_many_subscriptions: { kind: 'invalid', message: 'Too many subscriptions on one stream.' },
});
