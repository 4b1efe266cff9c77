import { createHmac, randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { commonErrors } from '../core/errors.js';
import { backendGrants } from '../core/grants.js';
import type { Principal } from '../core/permissions.js';
import type { AccountEvent, EventBus, FileEvent, ItemEvent, Told } from '../core/events.js';
import { newId } from '../core/ids.js';
import { wakeLoop } from '../core/wake-loop.js';
import type { Delivery, Webhook, WebhookStore } from '../core/webhooks.js';
import type { DataStores } from '../datastore/index.js';
import type { FileStores } from '../filestore/index.js';
import type { User } from '../users/index.js';
import { subjectReader, type SubjectViews } from './subjects.js';

/** The limits and timings of deliveries (config `webhooks`, docs/configuration.md). */
interface WebhookSettings {
  timeoutMs: number;
  maxAttempts: number;
  /** The wait before the second try; each further wait doubles, up to an hour. */
  retryMs: number;
}

interface WebhookDeps {
  events: EventBus;
  store: WebhookStore;
  dataStores: DataStores;
  fileStores: FileStores;
  views: SubjectViews;
  /** The account of an account event, for its body (null: gone). */
  userById(id: string): Promise<User | null>;
  settings: WebhookSettings;
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
  remove(caller: Principal, id: string): Promise<boolean>;
  deliveries(caller: Principal, webhookId: string, limit: number): Promise<Delivery[]>;
  /** Start delivering (serve does). */
  start(): void;
  /** Resolves once nothing is due and nothing is on its way in this process (tests, shutdown). */
  idle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const KINDS: Record<'items' | 'files' | 'users', readonly string[]> = {
  items: ['item.created', 'item.replaced', 'item.removed', 'item.owner_changed'],
  files: ['file.created', 'file.written', 'file.moved', 'file.removed', 'file.owner_changed'],
  users: ['account.created', 'account.changed', 'account.disabled', 'account.removed', 'account.signed_out'],
};
/**
 * How long a claimed delivery is held beyond its try's own limit (`timeoutMs`): the time to
 * record the outcome. A process killed mid-try holds its deliveries that long, then another
 * process tries them (issue 46, part 3: it was a fixed minute; docs/realtime.md gives the bound).
 */
const LEASE_MARGIN_MS = 10_000;
const POLL_MS = 1000;
const BATCH = 20;
/**
 * Webhooks are read again this often besides on every change (storage/webhook-store.ts): while
 * the change feed is down its cache does not answer, and this reading is the bound.
 */
const RELOAD_MS = 5000;

/**
 * The signature of a delivery (docs/realtime.md, "Webhooks"): HMAC-SHA256 with the webhook's
 * secret over `<timestamp>.<body>`, hex, as `sha256=<hex>` (the scheme of Stripe and GitHub; the
 * timestamp in the signed text lets a receiver refuse old replays).
 */
function signature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * Webhooks (issue 21): each committed change of a service some webhook wants becomes one
 * delivery per webhook, stored (storage/webhook-store.ts) and sent after the answer by a worker
 * like the mail queue's (mail/mail-queue.ts): POST of the event's JSON, signed; a failure is
 * tried again after `retryMs`, doubling, up to `maxAttempts` tries, then kept as failed.
 * Deliveries survive a restart, and several processes share the work. Only the process that
 * made a change delivers it (events of others arrive here too, `local: false`).
 */
export function createWebhooks(deps: WebhookDeps): Webhooks {
  const { store, settings, clock } = deps;
  const resolve = subjectReader(deps);
  let hooks: Webhook[] = [];
  let loaded: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  let reload: NodeJS.Timeout | null = null;
  let closed = false;
  const making = new Set<Promise<void>>();

  let stopListening: (() => void) | null = null;
  function listen(on: boolean): void {
    if (on && !stopListening && !closed) stopListening = deps.events.on(onEvent);
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

  function serviceOf(event: Told): string {
    return event.kind.startsWith('account.') ? 'users' : (event as Told<ItemEvent | FileEvent>).store;
  }

  /** The body of an event: the subject as the original protocol answers it, whoever may read it. */
  async function bodyOf(event: Told): Promise<string | null> {
    const at = new Date(event.at).toISOString();
    if (event.kind.startsWith('account.')) {
      const { userId, kind } = event as Told<AccountEvent>;
      const user = kind === 'account.removed' ? null : await deps.userById(userId);
      return JSON.stringify(
        user ? { event: kind, at, userId, user: deps.views.user(user) } : { event: kind, at, userId },
      );
    }
    const resolved = await resolve(event as Told<ItemEvent | FileEvent>);
    if (!resolved) return null;
    const data = resolved.now?.data ?? resolved.head;
    return `{"at":${JSON.stringify(at)},${data.slice(1)}`;
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
    const service = serviceOf(event);
    const wanting = hooks.filter(
      (h) => h.service === service && (h.kinds.length === 0 || h.kinds.includes(event.kind)),
    );
    if (wanting.length === 0) return;
    track(
      bodyOf(event).then(async (body) => {
        if (body === null) return;
        const created = clock.now();
        await store.enqueue(
          wanting.map((h) => ({ id: newId(), webhookId: h.id, kind: event.kind, payload: body, created })),
        );
        if (timer) void wake();
      }),
    );
  }

  async function deliver(delivery: Delivery): Promise<void> {
    // Added on another process since the last reading, maybe.
    const hook =
      hooks.find((h) => h.id === delivery.webhookId) ?? (await store.list()).find((h) => h.id === delivery.webhookId);
    if (!hook) {
      await store.failed(delivery.id, delivery.attempts, null, null, 'The webhook was removed.');
      return;
    }
    const attempts = delivery.attempts + 1;
    let status: number | null = null;
    try {
      const timestamp = Math.floor(clock.now() / 1000);
      const response = await fetch(hook.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(settings.timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Roost-Webhooks',
          'x-roost-event': delivery.kind,
          'x-roost-delivery': delivery.id,
          'x-roost-timestamp': String(timestamp),
          'x-roost-signature': signature(hook.secret, timestamp, delivery.payload),
        },
        body: delivery.payload,
      });
      status = response.status;
      const text = (await response.text()).slice(0, 300);
      if (status >= 200 && status < 300) {
        await store.delivered(delivery.id, status, clock.now());
        return;
      }
      throw new Error(`HTTP ${status}${text ? `: ${text}` : ''}`);
    } catch (err) {
      const message =
        err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      const retryAt =
        attempts >= settings.maxAttempts
          ? null
          : clock.now() + Math.min(3600_000, settings.retryMs * 2 ** Math.min(attempts - 1, 20));
      await store.failed(delivery.id, attempts, retryAt, status, message);
    }
  }

  /** Sends every due delivery, a batch at a time. */
  async function drain(): Promise<void> {
    await loaded;
    for (;;) {
      const batch = await store.claimDue(clock.now(), settings.timeoutMs + LEASE_MARGIN_MS, BATCH);
      if (batch.length === 0) return;
      await Promise.all(batch.map(deliver));
    }
  }
  const worker = wakeLoop(drain, deps.onError, () => closed);
  const wake = () => worker.wake();

  loaded = load().catch(deps.onError);

  return {
    list: async (caller) => {
      backendGrants(caller).require('administer');
      return store.list();
    },

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
      const family =
        input.service === 'users'
          ? 'users'
          : deps.dataStores.get(input.service)
            ? 'items'
            : deps.fileStores.get(input.service)
              ? 'files'
              : null;
      if (!family) problems.push(['service', 'unknown']);
      else if (input.kinds.some((k) => !KINDS[family].includes(k))) problems.push(['kinds', 'invalid']);
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
      return store.remove(id);
    },

    deliveries: async (caller, webhookId, limit) => {
      backendGrants(caller).require('administer');
      return store.deliveries(webhookId, limit);
    },

    start() {
      if (timer || closed) return;
      timer = setInterval(() => void wake(), POLL_MS).unref();
      reload = setInterval(() => void load().catch(deps.onError), RELOAD_MS).unref();
      void wake();
    },

    async idle(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      await loaded;
      for (;;) {
        await Promise.all(making);
        await wake();
        if ((await store.pending(clock.now())) === 0 && !worker.busy && making.size === 0) return;
        if (Date.now() > deadline) throw new Error('webhooks: deliveries still due after the timeout');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },

    async close() {
      closed = true;
      stopListening?.();
      stopListening = null;
      if (timer) clearInterval(timer);
      if (reload) clearInterval(reload);
      timer = null;
      await Promise.all(making);
      await worker.settled();
    },
  };
}
