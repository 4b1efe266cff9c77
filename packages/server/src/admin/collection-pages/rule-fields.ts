import type { FieldConf } from '@roost/forms';
import type { Rules } from '../../collections/index.js';

/**
 * A collection's rules as the schema editor shows them (docs/collections.md, "Rules"): per
 * operation, who may (administrators only, anyone, or whoever an expression lets) and the
 * expression. `null` and `""` are both "no text", so a text field alone could not tell them apart.
 */

const OPERATIONS = ['list', 'view', 'create', 'update', 'delete'] as const;

const WHO = [
  { id: 'admins', name: 'Administrators only' },
  { id: 'anyone', name: 'Anyone, signed in or not' },
  { id: 'rule', name: 'Whoever the rule lets' },
];

const whoOf = (rule: string | null) => (rule === null ? 'admins' : rule.trim() === '' ? 'anyone' : 'rule');

/** Two fields per operation: `<op>_who` and `<op>_rule` (the service's `rules.<op>` is shown at the latter). */
export function ruleFields(rules: Rules | undefined): FieldConf[] {
  return OPERATIONS.flatMap((op): FieldConf[] => {
    const rule = rules ? rules[op] : null;
    return [
      {
        id: `${op}_who`,
        name: `Who may ${op}`,
        datatype: 'list',
        required: true,
        default: whoOf(rule),
        listItems: WHO,
      },
      {
        id: `${op}_rule`,
        name: `Rule of ${op}`,
        datatype: 'string',
        size: 4096,
        default: rule ?? '',
        description: 'Used with “Whoever the rule lets”: an expression, e.g. owner = @request.auth.id',
      },
    ];
  });
}

/** The rules the fields say; an expression left empty under "whoever the rule lets" is `rules.<op>` required. */
export function rulesOf(data: Record<string, unknown>): { rules: Rules; missing: string[] } {
  const rules: Record<string, string | null> = {};
  const missing: string[] = [];
  for (const op of OPERATIONS) {
    const who = data[`${op}_who`];
    const text = typeof data[`${op}_rule`] === 'string' ? (data[`${op}_rule`] as string).trim() : '';
    if (who === 'anyone') rules[op] = '';
    else if (who === 'rule') {
      rules[op] = text;
      if (text === '') missing.push(`${op}_rule`);
    } else rules[op] = null;
  }
  return { rules: rules as Rules, missing };
}

/** The service's `rules.list` is the form's `list_rule`. */
export const RULE_ALIASES: Readonly<Record<string, string>> = Object.fromEntries(
  OPERATIONS.map((op) => [`rules.${op}`, `${op}_rule`]),
);
