import assert from 'node:assert/strict';
import fc from 'fast-check';
import { addAccount, PASSWORD, type TestServer } from '../../helpers/test-server.js';
import { checkAnswer, send, type WireCall } from './calls.js';
import type { OperationInfo } from './operations.js';
import {
  authArbitrary,
  authHeaders,
  transportArbitrary,
  valuesArbitrary,
  wireCall,
  type Auth,
  type Credentials,
  type Transport,
} from './requests.js';
import { snapshot, snapshotDiff, type IgnoredColumns, type StoreSnapshot } from './snapshot.js';

/**
 * The property every operation must have: whatever arrives, the answer is below 500, JSON with
 * the failure body when it refuses, free of stack traces, and a refusal stores nothing (the
 * whole store is compared before and after). Runs are bounded and reproducible: a fixed seed
 * unless `ROOST_PROPERTY_SEED` names another, `ROOST_PROPERTY_RUNS` runs per operation (25), and
 * `ROOST_PROPERTY_SHRINK=1` to have fast-check shrink a failure to a smaller example (slow, as
 * every step is a request).
 */
export const PROPERTY_SEED = Number(process.env.ROOST_PROPERTY_SEED ?? 20_261_123);
export const PROPERTY_RUNS = Number(process.env.ROOST_PROPERTY_RUNS ?? 25);

/** A seed per operation, so each explores its own inputs and one can be replayed alone. */
export function seedOf(info: OperationInfo): number {
  let h = PROPERTY_SEED;
  for (const c of `${info.service}:${info.op}`) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
  return h;
}

/**
 * The server and the fixtures the requests refer to. Successful runs may sign the fixture user
 * out, disable it, take away the administrator's group, move the fixture file or change the
 * permissions: `restore` puts back whatever a run broke, so later runs still reach deep.
 */
export class PropertyWorld {
  credentials: Credentials = { user: '', admin: '' };
  baseline: StoreSnapshot | null = null;
  userName = '';
  #generation = 0;
  #permissions = new Map<(op: 'getPermissions' | 'setPermissions') => string, unknown>();

  constructor(
    readonly s: TestServer,
    /** Put back the service's fixtures (a file, an item) for the current user. */
    private readonly fixtures: (world: PropertyWorld) => Promise<void>,
    /** The URL of `getPermissions` or `setPermissions` of each service whose entries must stay as they began. */
    private readonly permissionUrls: readonly ((op: 'getPermissions' | 'setPermissions') => string)[],
  ) {}

  async setUp(): Promise<void> {
    await this.renewUsers();
    for (const url of this.permissionUrls) this.#permissions.set(url, await this.#entries(url));
    await this.fixtures(this);
    this.baseline = await snapshot(this.s.roost);
  }

  async #entries(url: (op: 'getPermissions') => string): Promise<unknown> {
    const res = await this.s.request(url('getPermissions'), {}, { token: this.credentials.admin, method: 'POST' });
    assert.equal(res.status, 200, `${url('getPermissions')}: ${JSON.stringify(res.body)}`);
    return res.body.permissions;
  }

  /** New fixture accounts (a new name each time: the old one may be disabled or removed). */
  async renewUsers(which: { user?: boolean; admin?: boolean } = { user: true, admin: true }): Promise<void> {
    const n = this.#generation++;
    const account = async (name: string, groups: string[]) => {
      await addAccount(this.s.roost, name, { groups });
      return (await this.s.users('token', { identity: name, password: PASSWORD })).body.token as string;
    };
    if (which.user) {
      this.userName = `prop-user-${n}`;
      this.credentials.user = await account(this.userName, []);
    }
    if (which.admin) this.credentials.admin = await account(`prop-admin-${n}`, ['admins']);
  }

  /** After a successful change: make sure the fixtures still stand, then take a new baseline. */
  async restore(): Promise<void> {
    const user = await this.s.users('identity', {}, { token: this.credentials.user });
    const admin = await this.s.users('getPermissions', {}, { token: this.credentials.admin });
    if (user.status !== 200 || admin.status !== 200)
      await this.renewUsers({ user: user.status !== 200, admin: admin.status !== 200 });
    for (const [url, entries] of this.#permissions) {
      const now = await this.#entries(url);
      if (JSON.stringify(now) === JSON.stringify(entries)) continue;
      const permissions = (entries as { permission: string; groups: string[] }[]).map((e) => ({
        ...e,
        action: 'replace',
      }));
      const res = await this.s.request(
        url('setPermissions'),
        { permissions },
        { token: this.credentials.admin, method: 'POST' },
      );
      assert.equal(
        res.status,
        200,
        `restoring the permissions at ${url('setPermissions')}: ${JSON.stringify(res.body)}`,
      );
    }
    await this.fixtures(this);
    this.baseline = await snapshot(this.s.roost);
  }
}

export interface PropertyCase {
  info: OperationInfo;
  /** The URL path of the call (the file store's is arbitrary too), for the current fixtures. */
  path: (world: PropertyWorld) => fc.Arbitrary<string>;
  /** The values of a valid call by the fixture user. */
  template: (world: PropertyWorld) => Record<string, unknown>;
  /** Columns a refusal of this operation may change. */
  ignore?: IgnoredColumns;
}

interface Drawn {
  path: string;
  values: Record<string, unknown>;
  transport: Transport;
  auth: Auth;
}

/** Describe a run for a failure message (the values shortened). */
function describeRun(info: OperationInfo, call: WireCall, drawn: Drawn): string {
  const body = call.body === undefined ? '' : String(call.body).slice(0, 300);
  return (
    `${info.service} ${info.op}: ${call.method} ${call.path.slice(0, 300)} [${drawn.transport.kind}, auth ` +
    `${drawn.auth.kind}] ${body}`
  );
}

/** How the runs of one operation ended, by status (a refusal inside a 200 counts as `200 refused`). */
export type RunStats = Record<string, number>;

/** Check the property for one operation; returns how its runs ended. */
export async function checkOperation(
  world: PropertyWorld,
  c: PropertyCase,
  numRuns = PROPERTY_RUNS,
): Promise<RunStats> {
  const stats: RunStats = {};
  const download = c.info.op === 'download' || c.info.op === 'read';
  const arbitrary = fc.record({
    // Drawn lazily: the fixtures' names change when `restore` renews them.
    path: fc.constant(null).chain(() => c.path(world)),
    values: fc.constant(null).chain(() => valuesArbitrary(c.info, c.template(world))),
    transport: transportArbitrary(c.info),
    auth: authArbitrary,
  });
  await fc.assert(
    fc.asyncProperty(arbitrary, async (drawn) => {
      const call = wireCall(drawn.path, drawn.values, drawn.transport, authHeaders(drawn.auth, world.credentials));
      const context = describeRun(c.info, call, drawn);
      const answer = await send(world.s.url, call);
      const refused = checkAnswer(answer, context, { download });
      const outcome = `${answer.status}${refused && answer.status < 400 ? ' refused' : ''}`;
      stats[outcome] = (stats[outcome] ?? 0) + 1;
      if (refused) {
        const after = await snapshot(world.s.roost);
        assert.deepEqual(
          snapshotDiff(world.baseline as StoreSnapshot, after, c.ignore),
          [],
          `a refusal changed the store: ${context}`,
        );
        // Columns a refusal may change (the sign-in counters) are the new baseline.
        world.baseline = after;
      } else if (c.info.read) {
        world.baseline = await snapshot(world.s.roost);
      } else {
        await world.restore();
      }
    }),
    {
      numRuns,
      seed: seedOf(c.info),
      endOnFailure: process.env.ROOST_PROPERTY_SHRINK !== '1',
      includeErrorInReport: true,
    },
  );
  return stats;
}

/** One line for the test's diagnostics: `25 runs: 200×3, 401×7, 422×15`. */
export function describeStats(stats: RunStats): string {
  const total = Object.values(stats).reduce((a, b) => a + b, 0);
  return `${total} runs: ${Object.entries(stats)
    .sort()
    .map(([k, n]) => `${k}×${n}`)
    .join(', ')}`;
}
