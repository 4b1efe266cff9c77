import type { EventKind, Told } from './events.js';
import type { Principal } from './permissions.js';

/**
 * What a service kind tells, for live changes and webhooks (issue 38, items 1 and 2): a family
 * of event kinds (core/events.ts), the service each event is about, its subject read once for
 * every subscriber and webhook, and the realtime topics that hear of it. A service kind's
 * descriptor lists its families (core/service-kind.ts `events`); the hub (realtime/hub.ts) and
 * the webhooks (realtime/webhooks.ts) know events only through them: no kind's name, no prefix
 * test. The built-in families are in realtime/families/.
 */
export interface EventFamily {
  /** The first word of its topics (`items` of `items/notes?prefix=a`): `items`, `files`, `account`. */
  readonly name: string;
  /** Its event kinds, the webhooks' offer for its services. */
  readonly kinds: readonly EventKind[];
  /** Whether `service` is one of its services (a store's name, `users`): webhooks are set per service. */
  hasService(service: string): boolean;
  /** The services it has now, in the order a list shows them (the admin's webhook form). */
  services(): readonly string[];
  /** The service an event is about, or null when the event is not of this family. */
  serviceOf(event: Told): string | null;
  /**
   * A subscriber's topic of this family, from its text whole (starting with `name`): a
   * `validation_failure` for bad text at once; then `admit` refuses a caller who may not listen
   * (every topic of a request is parsed before any is admitted: bad text is told first).
   */
  topic(text: string): { admit(principal: Principal): Promise<Topic> };
  /** Where an event is filed, as `Topic.place`; null when the event is not of this family. */
  placeOf(event: Told): string | null;
  /** Reads what an event is about, once for every subscriber and webhook; null: nothing to tell. */
  read(event: Told): Promise<Subject | null>;
}

/** A subscription: where its streams are filed, and which of the events filed there it hears. */
export interface Topic {
  /** The family's name for the events it may hear (`items/notes`, `account/<user id>`). */
  readonly place: string;
  matches(event: Told): boolean;
}

/** Who gets an event of a stream: its caller, and whether the stream's session still lasts. */
export interface Listener {
  principal: Principal;
  /** The stream's token no longer signs in (it is closed right after this event). */
  sessionEnded: boolean;
}

/** An event's subject, read once. */
export interface Subject {
  /** What a listener gets of it, as the `data` of its frame: null when it may see nothing. */
  viewFor(listener: Listener): string | null;
  /**
   * What a listener gets of it under one of its topics, for a family whose topics narrow by the
   * subject's content (a live query's filter, realtime/families/record-family.ts): asked instead
   * of `viewFor` for each topic of the stream that matches the event. Absent: `viewFor`, the
   * same under every topic.
   */
  viewUnder?(listener: Listener, topic: Topic): string | null;
  /** What a webhook posts (`at`: the event's time, ISO 8601): all of it, whoever may read it. */
  body(at: string): string;
}
