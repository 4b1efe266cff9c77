import { formatTime } from '../core/clock.js';
import type { User } from './user-repo.js';

/** The response shapes of the seed; `reference` repeats `id` under the original's name. */

export function identityView(user: User) {
  return { name: user.name, realname: user.realname, email: user.email ?? '', id: user.id, reference: user.id };
}

/** `name` answers the name, or the email when the identity policy is email. */
export function nameView(user: User, policy: 'name' | 'email' | 'either') {
  return { name: policy === 'email' && user.email ? user.email : user.name, realname: user.realname };
}

export function profileView(user: User) {
  return {
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
  };
}

/** What administrators see: the profile plus the state and the creation time. */
export function adminView(user: User) {
  return { ...profileView(user), state: user.state, created: formatTime(user.created) };
}
