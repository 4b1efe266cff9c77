import type { EventFamily, Topic } from '../core/event-family.js';
import type { Principal } from '../core/permissions.js';
import { invalidTopic } from './families/topic-text.js';
import { realtimeErrors } from './realtime-errors.js';

/**
 * What a subscriber listens to (issue 21), written as text on the wire: its first word names
 * the family of events (core/event-family.ts), which parses the rest and says who may listen.
 * The built-in ones (realtime/families/, docs/realtime.md):
 *
 *   items/<store>                 every item (?keys=a,b these keys, ?prefix=notes/ keys starting so)
 *   files/<store>/<dir>           the entries directly in <dir> ('' is the root); /** everything below
 *   account                       the subscriber's own account
 *
 * Which of the matching events a subscriber may see is the grants' business (core/grants.ts),
 * checked per event by the family's subject; a topic only says what it asks for.
 */

/** Bounds of a topic's text: a subscription is a line, not a document. */
const MAX_TOPIC = 2048;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * The topics asked for, each parsed by its family and admitted for `principal`: refuses the
 * first bad text (all are parsed before any is admitted), then the first the caller may not hear.
 */
export async function admitTopics(
  texts: readonly string[],
  principal: Principal,
  families: readonly EventFamily[],
  maxTopics: number,
): Promise<Map<string, Topic>> {
  const unique = [...new Set(texts)];
  if (unique.length > maxTopics)
    throw realtimeErrors.too_many_subscriptions({
      message: `A stream takes at most ${maxTopics} subscriptions.`,
      fields: [['topics', 'too many']],
    });
  const requests = unique.map((text) => [text, parseTopic(text, families)] as const);
  const topics = new Map<string, Topic>();
  for (const [text, request] of requests) topics.set(text, await request.admit(principal));
  return topics;
}

function parseTopic(text: string, families: readonly EventFamily[]) {
  if (text.length === 0 || text.length > MAX_TOPIC) throw invalidTopic(text, `must have 1 to ${MAX_TOPIC} characters`);
  // A topic names the SSE event it is delivered as (http/routes/realtime-routes.ts): a line break
  // in it would end the field and let a subscriber forge frames of its own.
  if (CONTROL.test(text)) throw invalidTopic(text, 'has a control character');
  const word = text.split(/[/?]/, 1)[0];
  const family = families.find((f) => f.name === word);
  if (!family) throw invalidTopic(text, `is of none of the kinds ${families.map((f) => f.name).join(', ')}`);
  return family.topic(text);
}
