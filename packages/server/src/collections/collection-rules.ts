import { collectionRulesOptions } from '../core/config-parts.js';

/**
 * Who may do what to a collection's records (issue 39, item 4): one rule per operation, in the
 * filter language (query/). `null`, the default, lets administrators only; `""` lets anyone,
 * signed in or not; an expression lets whoever makes it true of the record
 * (`owner = @request.auth.id`). Administrators pass every rule (core/grants.ts `administers`).
 */
export const RULE_OPERATIONS = ['list', 'view', 'create', 'update', 'delete'] as const;
export type RuleOperation = (typeof RULE_OPERATIONS)[number];

export type Rules = Readonly<Record<RuleOperation, string | null>>;

/** The rules as callers and the configuration give them (core/config-parts.ts, one shape for both). */
export const rulesSchema = collectionRulesOptions;
