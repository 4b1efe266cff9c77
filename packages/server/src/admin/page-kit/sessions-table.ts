import { escapeHtml } from '@roost/forms';
import { formatTime } from '../../core/clock.js';
import { SESSION_LABELS, type ListedSession } from '../../users/index.js';
import { table } from './page-parts.js';

/** How each session was signed into, in words: the sign-in methods' labels (users/signin-methods/index.ts). */
const METHODS: Readonly<Record<string, string>> = SESSION_LABELS;

/**
 * The sessions of an account as the pages list them (the user's account page, the admin's page
 * of an account): device, address, how it was signed into, since when, last used; and a button
 * that posts `endSession$` with the session's id to `action` (none for the current session).
 */
export function sessionsTable(sessions: readonly ListedSession[], action: string, csrf: string): string {
  const hidden = `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;
  const end = (s: ListedSession) =>
    s.current
      ? '<strong>This browser</strong>'
      : `<form method="post" action="${escapeHtml(action)}">${hidden}` +
        `<input type="hidden" name="session" value="${escapeHtml(s.id)}">` +
        '<button type="submit" name="endSession$" value="1" class="btn secondary">End</button></form>';
  return table(
    'Sessions',
    [
      { label: 'Device', cell: (s) => escapeHtml(s.device || 'unknown') },
      { label: 'Address', cell: (s) => escapeHtml(s.address || 'unknown') },
      { label: 'Signed in with', cell: (s) => escapeHtml(METHODS[s.method] ?? s.method) },
      { label: 'Since', cell: (s) => `${formatTime(s.created)} UTC` },
      { label: 'Last used', cell: (s) => `${formatTime(s.lastUsed)} UTC` },
      { label: '', cell: end },
    ],
    sessions,
    'No sessions.',
  );
}

/** A form with one button that posts `<name>$` to `action`: ending all the sessions of a table. */
export function sessionsButton(action: string, csrf: string, name: string, label: string): string {
  return (
    `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}">` +
    `<button type="submit" name="${name}$" value="1" class="btn secondary">${escapeHtml(label)}</button></form>`
  );
}
