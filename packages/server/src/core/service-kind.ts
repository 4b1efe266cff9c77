import type { EventFamily } from './event-family.js';
import type { PermissionEntry } from './permission-ops.js';
import type { PermissionChange } from './permissions.js';

/**
 * A service descriptor (issue 38, item 1): one object per service kind (the user service, the
 * data stores, the file stores, and every kind to come) declaring what the rest of the server
 * used to list by hand. The composition root lists the kinds once (`SERVICE_KINDS` in
 * src/service-kinds.ts); openServices migrates their tables, and the HTTP app, the admin
 * navigation and pages, the permission pages, the webhooks' service list and `/ready` loop over
 * them. The adapters' types are parameters so that this file stays in `core/` (zod and `node:*`
 * only, docs/architecture.md): src/service-kinds.ts fixes them to Fastify, the page kit and Kysely.
 */

/** One service's permission entries, as the permission pages list and edit them. */
export interface PermissionTarget<Caller> {
  /** The service key of its entries in the `permissions` table: `users`, a store's name. */
  name: string;
  /** What it is, for people: `user service`, `data store`, ... */
  label: string;
  entries(caller: Caller): Promise<PermissionEntry[]>;
  change(caller: Caller, changes: PermissionChange[]): Promise<void>;
}

/** A section of the management backend's header. */
export interface NavSection {
  href: string;
  label: string;
}

/** A tile of the dashboard (`/admin`): a figure, what it counts, and where it is managed. */
interface DashboardTile {
  href: string;
  value: number;
  /** What it counts, in the number of `value` ('account', 'accounts'). */
  label: string;
}

/** A kind's part of the dashboard: its tiles, and its lines among the server's facts (plain text). */
export interface DashboardPart {
  tiles: DashboardTile[];
  facts: Array<[label: string, text: string]>;
}

export interface ServiceKind<Ctx, App, Pages, Caller, Migration> {
  /** The kind's name: `users`, `datastore`, `filestore`, ... */
  readonly kind: string;
  /** The tables the kind owns (docs/architecture.md, "Domains own their tables"). */
  readonly tables: readonly string[];
  /**
   * Migrations of its tables, by name (dated names: they run in name order after and among the
   * others). The built-in kinds' released migrations stay in storage/migrations/index.ts.
   */
  readonly migrations: Readonly<Record<string, Migration>>;
  /** The services of the kind (one per configured store), with their permission entries. */
  services(ctx: Ctx): ReadonlyArray<PermissionTarget<Caller>>;
  /** Registers its operations on the HTTP app (the original protocol tables of http/protocol/ and the routes). */
  routes?(app: App, ctx: Ctx): Promise<void>;
  /**
   * OpenAPI paths its route schemas cannot say (`/openapi.json`, http/openapi.ts): the file
   * stores' operations each under its own path, where they share catch-all routes.
   */
  docPaths?(ctx: Ctx): Record<string, object>;
  /** Its sections in the backend's header, in order. */
  readonly nav: readonly NavSection[];
  /** Registers its admin pages (those in the shared page set; store pages register as routes). */
  pages?(pages: Pages, ctx: Ctx): void;
  /** Its part of the dashboard, read as the administrator who opens it (admin/pages/dashboard-page.ts). */
  dashboard?(ctx: Ctx, caller: Caller): Promise<DashboardPart>;
  /** What `/ready` reports of it: problems, empty when ready (http/routes/health-routes.ts). */
  ready?(ctx: Ctx): Promise<string[]>;
  /**
   * What it tells (core/event-family.ts): its event kinds (declared in its folder by merging
   * into `RoostEvents`, core/events.ts), the service and subject of each, its realtime topics.
   * The hub and the webhooks are made from these, and know no kind otherwise.
   */
  events?(ctx: Ctx): readonly EventFamily[];
}
