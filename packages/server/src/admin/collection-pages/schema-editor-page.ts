import { readFile } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, isUploadedFile, type FieldConf } from '@roost/forms';
import type { CollectionState, CollectionVersion } from '../../collections/index.js';
import { isRoostError, RoostError, type FieldProblem } from '../../core/errors.js';
import { sendAdminForms, type AdminRequest } from '../page-kit/admin-page.js';
import { PageForm } from '../page-kit/page-form.js';
import { link, table, type Column } from '../page-kit/page-parts.js';
import {
  collectionUrl,
  NEW_COLLECTION_URL,
  recordUrl,
  registerPage,
  type CollectionPageContext,
} from './collection-page-context.js';
import { RULE_ALIASES, ruleFields, rulesOf } from './rule-fields.js';

/**
 * The schema editor (issue 39, item 7): a collection's JSON Schema as JSON text (pasted, typed,
 * or read from an uploaded .json file) and its rules, saved through the collections service's
 * `define`, exactly as `POST` and `PUT /api/collections/<name>` do. What the service refuses is
 * shown where it belongs: each schema problem by its path, a rule's at its field, and a change
 * that records would not fit with those records named and linked.
 */

/** The largest schema file an import takes: a schema is a description, not data. */
const SCHEMA_FILE_BYTES = 1024 * 1024;
const STARTER = { type: 'object', properties: {}, required: [] };
const NAME_RULE = '1–41 characters of a-z, 0-9 and _, starting with a letter; not batch or users.';

/** The misfits of a refused change, as the page lists them: `records.<id>` and why. */
interface Refusal {
  message: string;
  misfits: number;
  records: Array<{ id: string; reason: string }>;
}

function schemaFields(state: CollectionState | undefined): FieldConf[] {
  return [
    ...(state
      ? []
      : [
          {
            id: 'name',
            name: 'Name',
            datatype: 'string',
            required: true,
            size: 41,
            description: NAME_RULE,
          },
        ]),
    {
      id: 'schema',
      name: 'JSON Schema',
      datatype: 'text',
      settings: { rows: 18 },
      default: JSON.stringify(state?.schema ?? STARTER, null, 2),
      description: 'The schema of a record: an object schema of the subset docs/collections.md lists.',
    },
    {
      id: 'schema_file',
      name: 'Or import a schema file',
      datatype: 'file',
      settings: { accept: '.json,application/json' },
      description: 'A .json file of at most 1 MiB; it replaces the text above.',
    },
    ...ruleFields(state?.rules),
  ];
}

/** The schema the form sent: the uploaded file's text, else the field's; JSON it must be. */
async function schemaOf(data: Record<string, unknown>): Promise<unknown> {
  const file = data.schema_file;
  const text = isUploadedFile(file) && file.path ? await readFile(file.path, 'utf8') : String(data.schema ?? '');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new RoostError('invalid', 'validation_failure', 'The schema is not JSON.', {
      fields: [['schema', `not JSON: ${err instanceof Error ? err.message : String(err)}`]],
    });
  }
}

/**
 * The service's refusal in the form's terms: schema problems by path at the schema field, the
 * name's at the name field; a change refused for its records is kept for the page to list.
 */
function explained(err: RoostError, keep: (refusal: Refusal) => void): RoostError {
  if (err.code === 'schema_change_refused') {
    const misfits = Number((err.body as { misfits?: unknown } | undefined)?.misfits ?? err.fields.length);
    const records = err.fields.map(([field, reason]) => ({ id: field.replace(/^records\./, ''), reason }));
    keep({ message: err.message, misfits, records });
    return new RoostError(err.kind, err.code, err.message);
  }
  const fields = err.fields.map(([field, reason]): FieldProblem => {
    if (field === 'schema' || field.startsWith('schema.')) return ['schema', `${field} — ${reason}`];
    // The name is checked as the whole input of its parser (core/config-parts.ts `collectionName`).
    return field === '' || field === 'body' ? ['name', reason] : [field, reason];
  });
  return new RoostError(err.kind, err.code, err.message, { fields, body: err.body });
}

function refusalHtml(name: string, refusal: Refusal): string {
  const columns: Column<Refusal['records'][number]>[] = [
    { label: 'Record', cell: (r) => link(recordUrl(name, r.id), r.id) },
    { label: 'Why it would not fit', cell: (r) => escapeHtml(r.reason) },
  ];
  const listed = refusal.records.length < refusal.misfits ? ` (the first ${refusal.records.length} listed)` : '';
  return (
    '<section class="card confirm" id="refusal"><h2>The change was refused</h2>' +
    `<p>${escapeHtml(refusal.message)}${escapeHtml(listed)} Change these records, or the schema, and save again.</p>` +
    `${table('Records that would not fit', columns, refusal.records, 'No record named.')}</section>`
  );
}

function historyHtml(name: string, versions: CollectionVersion[], names: Map<string, string>): string {
  const columns: Column<CollectionVersion>[] = [
    { label: 'Version', cell: (v) => escapeHtml(v.version), className: 'num' },
    {
      label: 'By',
      cell: (v) =>
        v.changedBy === null
          ? '<span class="muted">the configuration</span>'
          : escapeHtml(names.get(v.changedBy) ?? v.changedBy),
    },
    { label: 'When (UTC)', cell: (v) => escapeHtml(v.changedAt) },
    { label: 'Fields', cell: (v) => escapeHtml(Object.keys(v.schema.properties ?? {}).join(', ')) },
  ];
  return (
    `<section class="card"><h2>History</h2>${table(`Versions of ${name}`, columns, [...versions].reverse(), 'None.')}` +
    '</section>'
  );
}

/** `/admin/collections/new-collection` and `/admin/collections/<name>/schema`. */
async function schemaPage(
  ctx: CollectionPageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  admin: AdminRequest,
  name: string | null,
) {
  const state = name === null ? undefined : ctx.collections.stateOf(name);
  let refusal: Refusal | undefined;
  const form = new PageForm({
    request: admin.form,
    formid: 'schema-form',
    csrfToken: admin.csrf,
    fields: schemaFields(state),
    actions: [{ id: 'save', method: 'submit', name: state ? 'Save schema and rules' : 'Create collection' }],
    fieldAliases: RULE_ALIASES,
    // The service's words of a rule or a schema problem are specific: said as they are.
    describe: (field, reason) => {
      if (field === 'schema' || field.endsWith('_rule')) return reason;
      return field === 'name' && reason === 'invalid' ? NAME_RULE : undefined;
    },
    perform: async (data) => {
      const target = state?.name ?? String(data.name ?? '').trim();
      const { rules, missing } = rulesOf(data);
      if (missing.length)
        throw new RoostError('invalid', 'validation_failure', 'A rule is missing.', {
          fields: missing.map((f): FieldProblem => [f, 'Write the rule, or choose who else may.']),
        });
      const schema = await schemaOf(data);
      try {
        await ctx.collections.define(admin.principal, target, { schema, rules }, state ? 'change' : 'create');
      } catch (err) {
        if (!isRoostError(err)) throw err;
        throw explained(err, (r) => (refusal = r));
      }
      return {
        message: state ? `Collection “${target}” saved.` : `Collection “${target}” created.`,
        redirect: `${collectionUrl(target)}/schema`,
      };
    },
  });
  const versions = state ? await ctx.collections.history(admin.principal, state.name) : [];
  const ids = versions.flatMap((v) => (v.changedBy ? [v.changedBy] : []));
  const names = ids.length ? await ctx.deps.services.users.directory.namesOf(ids) : new Map<string, string>();
  const here = state ? collectionUrl(state.name) : '/admin/collections';
  const title = state ? `Schema of ${state.name}` : 'New collection';
  return sendAdminForms(request, reply, admin, title, [form], ([html]) => {
    const top =
      `<p class="actions">${link(here, state ? `← Records of ${state.name}` : '← All collections')}` +
      (state ? ` ${link(`${here}/schema.json`, 'Export the JSON Schema', ' class="button secondary" download')}` : '') +
      '</p>';
    return (
      top +
      (refusal && state ? refusalHtml(state.name, refusal) : '') +
      `<section class="card">${html}</section>` +
      (state
        ? historyHtml(state.name, versions, names) +
          '<section class="card"><h2>Delete</h2>' +
          `<p>${link(`${here}/remove`, 'Delete this collection and its records…', ' class="button danger"')}` +
          '</p></section>'
        : '')
    );
  });
}

/** `/admin/collections/<name>/schema.json`: the current JSON Schema, a download. */
async function exportSchema(ctx: CollectionPageContext, reply: FastifyReply, admin: AdminRequest, name: string) {
  const info = await ctx.collections.describe(admin.principal, name);
  return reply
    .header('cache-control', 'no-store')
    .type('application/schema+json; charset=utf-8')
    .header('content-disposition', `attachment; filename="${info.name}.schema.json"`)
    .send(`${JSON.stringify(info.schema, null, 2)}\n`);
}

/** `/admin/collections/<name>/remove`: ask, then drop the collection with every record. */
async function removePage(
  ctx: CollectionPageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  admin: AdminRequest,
  name: string,
) {
  const info = await ctx.collections.describe(admin.principal, name);
  const form = new PageForm({
    request: admin.form,
    formid: 'remove-form',
    csrfToken: admin.csrf,
    // The form library wants a field; the question's answer is the button, this only says "asked".
    fields: [{ id: 'confirm', datatype: 'hidden', default: 'yes' }],
    actions: [{ id: 'remove', method: 'submit', name: 'Delete collection and records', cssClass: 'btn danger' }],
    perform: async () => {
      await ctx.collections.drop(admin.principal, info.name);
      return { message: `Collection “${info.name}” deleted.`, redirect: '/admin/collections' };
    },
  });
  const records = `${info.records} ${info.records === 1 ? 'record' : 'records'}`;
  return sendAdminForms(
    request,
    reply,
    admin,
    'Delete collection',
    [form],
    ([html]) =>
      `<div class="card confirm"><p>Delete the collection <code class="key">${escapeHtml(info.name)}</code>, ` +
      `its ${escapeHtml(records)} and its history for good? This cannot be undone.</p>` +
      `${html}<p>${link(`${collectionUrl(info.name)}/schema`, 'Cancel')}</p></div>`,
  );
}

export function registerSchemaPages(app: FastifyInstance, ctx: CollectionPageContext): void {
  const tooLarge = `A schema file holds at most ${SCHEMA_FILE_BYTES} bytes.`;
  const upload = { fileBytes: SCHEMA_FILE_BYTES, tooLarge };
  registerPage(
    app,
    ctx,
    NEW_COLLECTION_URL,
    (request, reply, admin) => schemaPage(ctx, request, reply, admin, null),
    upload,
  );
  registerPage(
    app,
    ctx,
    '/admin/collections/:name/schema',
    (request, reply, admin) => schemaPage(ctx, request, reply, admin, request.params.name),
    upload,
  );
  registerPage(
    app,
    ctx,
    '/admin/collections/:name/schema.json',
    (request, reply, admin) => exportSchema(ctx, reply, admin, request.params.name),
    { methods: ['GET'] },
  );
  registerPage(app, ctx, '/admin/collections/:name/remove', (request, reply, admin) =>
    removePage(ctx, request, reply, admin, request.params.name),
  );
}
