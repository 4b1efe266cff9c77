import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { commonErrors } from '../core/errors.js';
import { backendGrants } from '../core/grants.js';
import type { Principal } from '../core/permissions.js';
import type { EventFamily } from '../core/event-family.js';
import type { EventBus, Told } from '../core/events.js';
import { newId } from '../core/ids.js';
import type { JobQueue } from '../core/job-queue.js';
import type { Delivery, Webhook, WebhookStore } from '../core/webhooks.js';
import { deliveryOf, webhookJob } from './webhook-delivery.js';

interface WebhookDeps {
  events: EventBus;
  store: WebhookStore;
  /** What the services tell (core/event-family.ts): each event's service, its body, the kinds offered. */
  families: readonly EventFamily[];
  /** Where deliveries wait and are sent from (realtime/webhook-delivery.ts runs them). */
  jobs: JobQueue;
  clock: Clock;
  onError(err: unknown): void;
}

/** What an administrator gives for a new webhook. */
interface NewWebhook {
  url: string;
  service: string;
  kinds: readonly string[];
}

/**
 * What administrators manage: each call takes its caller and checks the backend permission
 * (`backendGrants`, core/grants.ts; the list holds the secrets), so no page nor program reaches
 * the webhooks without it (issue 38, item 7).
 */
export interface Webhooks {
  list(caller: Principal): Promise<Webhook[]>;
  /** Adds a webhook with a new secret; a URL that is not http(s), an unknown service or kind is refused. */
  add(caller: Principal, input: NewWebhook): Promise<Webhook>;
  /** The services a webhook may follow now: every family's (users, stores, collections). */
  services(): string[];
  remove(caller: Principal, id: string): Promise<boolean>;
  deliveries(caller: Principal, webhookId: string, limit: number): Promise<Delivery[]>;
  /** Start following the list every RELOAD_MS (serve does; the job queue delivers). */
  start(): void;
  /** Resolves once nothing is due and nothing is on its way in this process (tests, shutdown). */
  idle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Webhooks are read again this often besides on every change (storage/webhook-store.ts): while
 * the change feed is down its cache does not answer, and this reading is the bound.
 */
const RELOAD_MS = 5000;

/**
 * Webhooks (issue 21): each committed change of a service some webhook wants becomes one
 * delivery per webhook, a job of the queue (core/job-queue.ts) sent after the answer by
 * realtime/webhook-delivery.ts. Deliveries survive a restart, and several processes share the
 * work. Only the process that made a change delivers it (events of others arrive here too, `local: false`).
 */
export function createWebhooks(deps: WebhookDeps): Webhooks {
  const { store, clock, jobs } = deps;
  let hooks: Webhook[] = [];
  let loaded: Promise<void> = Promise.resolve();
  let reload: NodeJS.Timeout | null = null;
  let closed = false;
  const making = new Set<Promise<void>>();

  let stopListening: (() => void) | null = null;
  function listen(on: boolean): void {
    if (on && !stopListening && !closed) stopListening = deps.events.onAny(onEvent);
    else if (!on && stopListening) {
      stopListening();
      stopListening = null;
    }
  }

  /** The reading of the list under way: events told meanwhile wait for it. */
  let reading: Promise<void> | null = null;
  /**
   * Reads the webhooks (from the store's cache unless they changed somewhere). The bus is
   * listened to while there is one (a listener makes every write build its event:
   * bench/RESULTS.md, "Live changes") and during the reading, whose list then decides.
   */
  function load(): Promise<void> {
    listen(true);
    const current: Promise<void> = store.list().then(
      (list) => {
        if (reading !== current) return; // a later reading decides
        reading = null;
        hooks = list;
        listen(hooks.length > 0);
      },
      (err: unknown) => {
        if (reading === current) reading = null;
        throw err;
      },
    );
    reading = current;
    return current;
  }
  // A webhook added or removed on any process (the change feed's message, storage/webhook-store.ts).
  store.onChange(() => void load().catch(deps.onError));

  /** The family of an event, with the service it is about; null for an event of no family here. */
  function familyOf(event: Told): { family: EventFamily; service: string } | null {
    for (const family of deps.families) {
      const service = family.serviceOf(event);
      if (service !== null) return { family, service };
    }
    return null;
  }

  /** The body of an event: the subject as the original protocol answers it, whoever may read it. */
  async function bodyOf(family: EventFamily, event: Told): Promise<string | null> {
    const subject = await family.read(event);
    return subject ? subject.body(new Date(event.at).toISOString()) : null;
  }

  function track(work: Promise<void>): void {
    const made: Promise<void> = work.catch(deps.onError).finally(() => making.delete(made));
    making.add(made);
  }

  function onEvent(event: Told): void {
    if (!event.local) return;
    if (reading === null) consider(event);
    else
      track(
        (async () => {
          while (reading) await reading.catch(() => {});
          consider(event);
        })(),
      );
  }

  function consider(event: Told): void {
    if (hooks.length === 0) return;
    const of = familyOf(event);
    if (!of) return;
    const wanting = hooks.filter(
      (h) => h.service === of.service && (h.kinds.length === 0 || h.kinds.includes(event.kind)),
    );
    if (wanting.length === 0) return;
    track(
      bodyOf(of.family, event).then(async (body) => {
        if (body === null) return;
        await jobs.addAll(
          webhookJob,
          wanting.map((h) => ({
            payload: { webhookId: h.id, kind: event.kind, body },
            subject: h.id,
            // The request that made the change: sent as `x-request-id` (webhook-delivery.ts).
            requestId: event.requestId,
          })),
        );
      }),
    );
  }

  loaded = load().catch(deps.onError);

  return {
    list: async (caller) => {
      backendGrants(caller).require('administer');
      return store.list();
    },

    services: () => deps.families.flatMap((family) => family.services()),

    async add(caller, input) {
      backendGrants(caller).require('administer');
      const problems: Array<[string, string]> = [];
      let url: URL | null = null;
      try {
        url = new URL(input.url);
      } catch {
        // reported below
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || input.url.length > 2000)
        problems.push(['url', 'invalid']);
      const family = deps.families.find((f) => f.hasService(input.service));
      const offered: ReadonlySet<string> = new Set(family?.kinds);
      if (!family) problems.push(['service', 'unknown']);
      else if (input.kinds.some((k) => !offered.has(k))) problems.push(['kinds', 'invalid']);
      if (problems.length > 0) throw commonErrors.validation_failure({ fields: problems });
      const webhook: Webhook = {
        id: newId(),
        url: input.url,
        secret: randomBytes(24).toString('base64url'),
        service: input.service,
        kinds: [...new Set(input.kinds)],
        created: clock.now(),
      };
      // The store tells its listeners, here and elsewhere (`onChange` above).
      await store.add(webhook);
      return webhook;
    },

    remove: async (caller, id) => {
      backendGrants(caller).require('administer');
      const removed = await store.remove(id);
      await jobs.removeSubject(webhookJob, id);
      return removed;
    },

    deliveries: async (caller, webhookId, limit) => {
      backendGrants(caller).require('administer');
      return (await jobs.list(caller, { kind: webhookJob.name, subject: webhookId, limit })).map(deliveryOf);
    },

    start() {
      if (reload || closed) return;
      reload = setInterval(() => void load().catch(deps.onError), RELOAD_MS).unref();
    },

    async idle(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      await loaded;
      for (;;) {
        await Promise.all(making);
        await jobs.idle(Math.max(1, deadline - Date.now()));
        if (making.size === 0) return;
      }
    },

    async close() {
      closed = true;
      stopListening?.();
      stopListening = null;
      if (reload) clearInterval(reload);
      await Promise.all(making);
    },
  };
}
