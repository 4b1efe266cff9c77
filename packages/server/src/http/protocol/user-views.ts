import { formatTime } from '../../core/clock.js';
import { METHOD_FIGURES, SESSION_LABELS, type User, type UserPage } from '../../users/index.js';
import { answerOf, SCALARS } from './answer-schemas.js';

/** The answers the user service's areas share (user-protocol.ts lists the areas). */
/** The response shapes of the seed; `reference` repeats `id` under the original's name. */
export const identityView = (user: User) => ({
  name: user.name,
  realname: user.realname,
  email: user.email ?? '',
  id: user.id,
  reference: user.id,
});

export const profileView = (user: User) => ({
  name: user.name,
  email: user.email ?? '',
  realname: user.realname,
  data: user.data,
  activity: formatTime(user.activity),
  notify: user.notify,
  id: user.id,
  reference: user.id,
  active: user.state === 'active',
  pending: user.state === 'pending',
  groups: user.groups,
});

/** What administrators see: the profile plus the state and the creation time. */
export const adminView = (user: User) => ({
  ...profileView(user),
  state: user.state,
  created: formatTime(user.created),
});

export const pageBody = <T>(page: UserPage, view: (user: User) => T) => ({
  users: page.users.map(view),
  start: page.start,
  size: page.size,
  total: page.total,
});

export const IDENTITY_ANSWER = answerOf({
  name: SCALARS.string,
  realname: SCALARS.string,
  email: SCALARS.string,
  id: SCALARS.string,
  reference: { ...SCALARS.string, description: 'The id again, under the original name.' },
});
const PROFILE_MEMBERS = {
  name: SCALARS.string,
  email: SCALARS.string,
  realname: SCALARS.string,
  data: { ...SCALARS.string, description: 'Free text (JSON sent as an object or list is kept as its text).' },
  activity: { ...SCALARS.string, description: 'Last sign-in, `YYYY/MM/DD HH:MM:SS` UTC; empty when never.' },
  notify: SCALARS.boolean,
  id: SCALARS.string,
  reference: SCALARS.string,
  active: SCALARS.boolean,
  pending: SCALARS.boolean,
  groups: SCALARS.strings,
};
export const PROFILE_ANSWER = answerOf(PROFILE_MEMBERS);
const ADMIN_MEMBERS = {
  ...PROFILE_MEMBERS,
  state: { enum: ['active', 'pending', 'disabled'] },
  created: SCALARS.string,
};
export const ADMIN_VIEW = answerOf(ADMIN_MEMBERS);
export const ADMIN_ANSWER = answerOf({ result: { const: true }, ...ADMIN_MEMBERS });
export const TOKEN_ANSWER = answerOf({
  result: { const: true },
  token: SCALARS.string,
  expires: { ...SCALARS.integer, description: 'Milliseconds since the epoch.' },
});

export const RECOVERY_CODES = {
  ...SCALARS.strings,
  description: 'Ten codes, each good for one sign-in; shown this once (only their hashes are kept).',
};
const SESSION_VIEW = answerOf({
  id: SCALARS.string,
  method: { enum: Object.keys(SESSION_LABELS) },
  device: { ...SCALARS.string, description: 'The User-Agent the session started from.' },
  address: SCALARS.string,
  created: { ...SCALARS.integer, description: 'Milliseconds since the epoch.' },
  lastUsed: { ...SCALARS.integer, description: 'Milliseconds since the epoch, to about five minutes.' },
  expires: SCALARS.integer,
  current: { ...SCALARS.boolean, description: 'The session of this request.' },
});
export const SESSIONS_ANSWER = answerOf({ result: { const: true }, sessions: { type: 'array', items: SESSION_VIEW } });
/** The methods' figures of the summary (users/signin-method.ts), leading ones or the others, as answer members. */
const figureMembers = (leads: boolean) =>
  Object.fromEntries(
    Object.entries(METHOD_FIGURES)
      .filter(([, figure]) => (figure.leads === true) === leads)
      .map(([name, figure]) => [
        name,
        { ...(figure.flag ? SCALARS.boolean : SCALARS.integer), description: figure.description },
      ]),
  );
export const FACTORS_ANSWER = answerOf({
  result: { const: true },
  // The authenticator app and the recovery codes first, where they have always been.
  ...figureMembers(true),
  required: { ...SCALARS.boolean, description: 'An administrator requires a second factor of this account.' },
  providers: { ...SCALARS.strings, description: 'The sign-in providers linked to the account, by id.' },
  // The other methods' figures: a count of passkeys.
  ...figureMembers(false),
});
