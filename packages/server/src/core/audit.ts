import { AsyncLocalStorage } from 'node:async_hooks';
import type { Principal } from './permissions.js';

/**
 * The audit log (issue 42, item 5; docs/operations.md "Audit log"): every administrator action
 * and every change of permissions, settings, webhooks, keys and accounts, with who, when, from
 * where, and what before and after. The table is storage/audit-store.ts's; the stores that can
 * write their entry in the change's own transaction do (storage/permission-store.ts,
 * storage/settings-store.ts, storage/webhook-store.ts, keys/key-repo.ts), the others record
 * just after the change through `AuditLog.record`.
 */

/** Who did it: a user (`id` its user id), an API key (`key:<id>`), a program (`roost`, the CLI), or the system. */
export interface AuditActor {
  id: string;
  name: string;
  /** The client's address when the change came over HTTP. */
  address: string | null;
}

/** What happened, as a store or a service tells it. */
export interface AuditChange {
  /** Dotted, `<what>.<verb>`: `key.create`, `settings.change`, `permissions.change`, `user.update`. */
  action: string;
  /** What it was done to: a key's id, a service's name, an account's name. */
  target: string;
  before?: unknown;
  after?: unknown;
}

/** One line of the log, as read back. `at` is milliseconds; pages and exports show ISO 8601. */
export interface AuditRecord {
  id: string;
  at: number;
  actor: string;
  actorName: string;
  address: string | null;
  action: string;
  target: string;
  before: unknown;
  after: unknown;
}

export interface AuditFilter {
  /** An actor's name or id, exactly. */
  actor?: string;
  /** An action, or its start (`key.` for all of the keys'). */
  action?: string;
  /** Milliseconds, from (inclusive) and until (exclusive). */
  from?: number;
  until?: number;
  /** The newest first; at most this many (default 100). */
  limit?: number;
  /** Paging: only lines older than this one (its `at` and `id`). */
  before?: { at: number; id: string };
}

export interface AuditLog {
  /** Records a change done outside a store's transaction; the actor defaults to `currentActor()`. */
  record(change: AuditChange, actor?: AuditActor): Promise<void>;
  list(filter: AuditFilter): Promise<AuditRecord[]>;
  /** Removes the lines older than `before` (the retention sweep); how many. */
  sweep(before: number): Promise<number>;
}

/** The actor of work no person or key started (the retention sweep, a migration). */
const SYSTEM_ACTOR: AuditActor = Object.freeze({ id: 'system', name: 'system', address: null });

/** The actor a principal is; a key's id is `key:<id>` so it never reads as a user's. */
function actorOf(principal: Principal, address: string | null = null): AuditActor {
  if (principal.key)
    return { id: `key:${principal.key.id}`, name: principal.name ?? `key:${principal.key.id}`, address };
  if (principal.userId === null) return { id: 'anonymous', name: 'anonymous', address };
  return { id: principal.userId, name: principal.name ?? principal.userId, address };
}

/**
 * Who the work under way is done for. The HTTP app opens a frame for a request that may change
 * what the log keeps, with its caller and address (http/audit-context.ts): a store that records a
 * change learns who and from where without every operation passing them down.
 */
export interface ActorFrame {
  principal: Principal | null;
  address: string | null;
  /** Whether a line was written for this frame's work (an admin page's post without one gets its own). */
  recorded: boolean;
}

/**
 * The frames open now, one `AsyncLocalStorage` each. On Node 20 and 22 an enabled
 * `AsyncLocalStorage` runs a hook on every promise of the process (twice the time of a bare
 * `await` in a loop, measured here), so a frame is its own instance, disabled when its request
 * ends: the hook runs only while a frame is open, and the requests that open none (the stores'
 * reads and writes by users and keys, the hot paths) never pay for it. Node 24's
 * `AsyncContextFrame` costs nothing either way.
 */
const open = new Set<AsyncLocalStorage<ActorFrame>>();

/** A frame for one request: `run` the request's work in it, `close` it when the request ends. */
export function openActorFrame(address: string | null): {
  frame: ActorFrame;
  run<T>(work: () => T): T;
  close(): void;
} {
  const storage = new AsyncLocalStorage<ActorFrame>();
  const frame: ActorFrame = { principal: null, address, recorded: false };
  open.add(storage);
  return {
    frame,
    run: (work) => storage.run(frame, work),
    close() {
      open.delete(storage);
      storage.disable();
    },
  };
}

/** Runs `work` in a frame of its own as `principal` (a test; the HTTP app opens and closes its frames itself). */
export async function inActorFrame<T>(
  principal: Principal | null,
  address: string | null,
  work: () => Promise<T>,
): Promise<T> {
  const opened = openActorFrame(address);
  opened.frame.principal = principal;
  try {
    return await opened.run(work);
  } finally {
    opened.close();
  }
}

/** The frame of the work under way, if any (http/audit-context.ts keeps it on the request). */
function currentFrame(): ActorFrame | undefined {
  for (const storage of open) {
    const frame = storage.getStore();
    if (frame) return frame;
  }
  return undefined;
}

/** The actor of a frame's work: its caller, else the system. */
export function frameActor(frame: ActorFrame | undefined): AuditActor {
  if (!frame?.principal) return frame?.address ? { ...SYSTEM_ACTOR, address: frame.address } : SYSTEM_ACTOR;
  return actorOf(frame.principal, frame.address);
}

/** The actor of the work under way: the request's caller, else the system. */
export function currentActor(): AuditActor {
  return frameActor(currentFrame());
}

/** Notes that the work under way has its line (storage/audit-store.ts calls it). */
export function noteRecorded(): void {
  const frame = currentFrame();
  if (frame) frame.recorded = true;
}

/** Names whose values are secrets: never written to the log (`[redacted]` instead). */
const SECRET_NAME = /(password|secret|token|apikey|accesskey|secretkey|hash|private)/i;
export const REDACTED = '[redacted]';
/** The password of a URL (`smtp://user:password@host`, `redis://:password@host`). */
const URL_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^/@\s:]*:)[^/@\s]*@/i;

/**
 * A value as the log keeps it: members named like a secret (`mail.smtp.password`, `secret`,
 * `secretHash`) replaced by `[redacted]`, at any depth; a setting's path counts by its last part;
 * the password of a URL (`mail.smtpUrl`) too.
 */
export function redacted(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(URL_PASSWORD, `$1${REDACTED}@`);
  if (Array.isArray(value)) return value.map(redacted);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(value)) {
    const last = name.slice(name.lastIndexOf('.') + 1);
    out[name] = SECRET_NAME.test(last) && member !== null && member !== undefined ? REDACTED : redacted(member);
  }
  return out;
}
