import type { SubjectViews } from '../../realtime/subjects.js';
import { itemView } from './datastore-protocol.js';
import { entryView } from './filestore-protocol.js';
import { profileView } from './user-protocol.js';

/** Items, entries and accounts in live events and webhooks as the original protocol answers them. */
export const subjectViews: SubjectViews = { item: itemView, entry: entryView, user: profileView };
