import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, isUploadedFile, type ListItem } from '@roost/forms';
import type { CollectionState, RecordView } from '../../collections/index.js';
import { isRoostError, RoostError, type FieldProblem } from '../../core/errors.js';
import { childOf, pathOf, ROOT, type FilePath, type FileStore } from '../../filestore/index.js';
import { sendAdminForms, type AdminRequest } from '../page-kit/admin-page.js';
import { PageForm } from '../page-kit/page-form.js';
import { facts, link } from '../page-kit/page-parts.js';
import { resumableRecordArea } from '../page-kit/resumable-upload.js';
import { collectionUrl, recordUrl, registerPage, type CollectionPageContext } from './collection-page-context.js';
import { plainText } from './record-columns.js';
import {
  fileFields,
  recordData,
  recordFields,
  relationTargets,
  uploadFieldOf,
  type RelationChoices,
  type Schema,
} from './record-fields.js';

/**
 * A record's pages (issue 39, item 7): new, edit, delete, each through the collections service
 * as the administrator (`create`, `update` with the whole record, `remove`). The form is made
 * from the collection's schema (record-fields.ts); what the record validator refuses is said at
 * the field it names (a member of an object at the object's field, with its path).
 */

/** How many records (or accounts) a relation's input offers: the newest; any other id may be typed. */
const OFFERED = 200;

/** The first text field that is neither a relation nor a file: what names a record in a list. */
function labelField(state: CollectionState): string | undefined {
  return state.fields.fields.find((f) => f.kind === 'text' && !f.relation && !f.file && !f.format)?.name;
}

async function relationChoices(ctx: CollectionPageContext, admin: AdminRequest, schema: Schema) {
  const choices = new Map<string, ListItem[]>();
  for (const target of relationTargets(schema)) {
    if (target === 'users') {
      const { users } = await ctx.deps.services.users.list(admin.caller, { size: OFFERED, sort: 'name' });
      choices.set(
        target,
        users.map((u) => ({ id: u.id, name: u.name })),
      );
      continue;
    }
    const state = ctx.collections.state(target);
    if (!state) continue;
    const label = labelField(state);
    const page = await ctx.collections.list(admin.principal, target, { perPage: OFFERED });
    choices.set(
      target,
      page.items.map((r) => ({ id: r.id, name: label && r[label] !== undefined ? plainText(r[label]) : r.id })),
    );
  }
  return choices as RelationChoices;
}

/** The largest file the record form takes: that of the largest file store a file field names. */
function recordFileBytes(ctx: CollectionPageContext, name: string): number {
  const state = ctx.collections.state(name);
  if (!state) return 0;
  const stores = ctx.deps.config.fileStores;
  return Math.max(
    0,
    ...fileFields(state.schema).map((f) => (Object.hasOwn(stores, f.store) ? (stores[f.store]?.maxFileBytes ?? 0) : 0)),
  );
}

/** The folder of a collection's uploads in a file store, `/<collection>/`, made when missing. */
async function uploadFolder(store: FileStore, admin: AdminRequest, collection: string): Promise<FilePath> {
  const folder = pathOf([collection]);
  try {
    await store.get(admin.principal, folder);
  } catch (err) {
    if (!isRoostError(err) || err.kind !== 'not_found') throw err;
    await store.create(admin.principal, ROOT, { name: collection, type: 'd' });
  }
  return folder;
}

/**
 * Files uploaded beside file fields go into their store, under `/<collection>/`, each under a
 * fresh name; the record gets their paths. One file a form at most (page-kit/page-body.ts).
 * Answers a function that removes them again, for a record the service then refuses.
 */
async function storeUploads(
  ctx: CollectionPageContext,
  admin: AdminRequest,
  state: CollectionState,
  data: Record<string, unknown>,
): Promise<() => Promise<void>> {
  const stored: Array<{ store: FileStore; path: FilePath }> = [];
  for (const { name, store: storeName } of fileFields(state.schema)) {
    const file = data[uploadFieldOf(name)];
    if (!isUploadedFile(file) || !file.path) continue;
    const store = ctx.deps.services.fileStores.get(storeName);
    if (!store)
      throw new RoostError('invalid', 'validation_failure', `There is no file store ${storeName}.`, {
        fields: [[uploadFieldOf(name), 'no such file store']],
      });
    const folder = await uploadFolder(store, admin, state.name);
    const saved = `${randomUUID().slice(0, 8)}-${file.filename}`;
    // The name checked first, at the upload's field (too long, a control character).
    const target = childOf(folder, saved, uploadFieldOf(name));
    const upload = { stream: createReadStream(file.path), mime: file.mime, size: file.size };
    try {
      await store.create(admin.principal, folder, { name: saved }, upload);
    } finally {
      // A refusal before the store read the file leaves the stream open: close it.
      upload.stream.destroy();
    }
    stored.push({ store, path: target });
    data[name] = target.path;
  }
  return async () => {
    for (const { store, path } of stored) await store.remove(admin.principal, path, {}).catch(() => undefined);
  };
}

/**
 * With JavaScript, the record form's files go to their stores by tus (page-kit/resumable-upload.ts)
 * and the record is sent with their paths; without it, `storeUploads` stores them.
 */
function resumableFields(ctx: CollectionPageContext, state: CollectionState, html = ''): string {
  const stores = ctx.deps.services.fileStores;
  const fields = fileFields(state.schema).filter((f) => stores.get(f.store)?.uploads);
  return resumableRecordArea(html, state.name, fields);
}

/**
 * The validator's problems at the form's fields: `address.city` at `address` as "city: …",
 * `tags.2` at `tags`; a problem of the whole record (`body`) above the form.
 */
function atFields(err: RoostError): RoostError {
  if (err.code !== 'validation_failure') return err;
  const fields = err.fields.map(([path, reason]): FieldProblem => {
    const [top = '', ...rest] = path.split('.');
    return rest.length ? [top, `${rest.join('.')}: ${reason}`] : [top, reason];
  });
  return new RoostError(err.kind, err.code, err.message, { fields, body: err.body });
}

function recordForm(
  ctx: CollectionPageContext,
  admin: AdminRequest,
  state: CollectionState,
  choices: RelationChoices,
  record: RecordView | undefined,
): PageForm {
  return new PageForm({
    request: admin.form,
    formid: 'record-form',
    csrfToken: admin.csrf,
    fields: recordFields(state.schema, choices, record),
    actions: [{ id: 'save', method: 'submit', name: record ? 'Save record' : 'Create record' }],
    perform: async (data) => {
      const removeUploads = await storeUploads(ctx, admin, state, data);
      const values = recordData(state.schema, data);
      try {
        const saved = record
          ? await ctx.collections.update(admin.principal, state.name, record.id, values, 'replace')
          : await ctx.collections.create(admin.principal, state.name, values);
        return {
          message: `Record ${saved.id} ${record ? 'saved' : 'created'}.`,
          redirect: recordUrl(state.name, saved.id),
        };
      } catch (err) {
        // The record was refused: its new files are not kept either.
        await removeUploads();
        throw isRoostError(err) ? atFields(err) : err;
      }
    },
  });
}

const backTo = (name: string) => `<p class="actions">${link(collectionUrl(name), `← Records of ${name}`)}</p>`;

/** `/admin/collections/<name>/new` and `/admin/collections/<name>/records/<id>`. */
async function recordPage(
  ctx: CollectionPageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  admin: AdminRequest,
  params: { name: string; id?: string },
) {
  const state = ctx.collections.stateOf(params.name);
  const record =
    params.id === undefined ? undefined : await ctx.collections.get(admin.principal, state.name, params.id);
  const choices = await relationChoices(ctx, admin, state.schema);
  const form = recordForm(ctx, admin, state, choices, record);
  if (!record)
    return sendAdminForms(
      request,
      reply,
      admin,
      `New record of ${state.name}`,
      [form],
      ([html]) => `${backTo(state.name)}<section class="card">${resumableFields(ctx, state, html)}</section>`,
    );
  const owner = record.owner
    ? ((await ctx.deps.services.users.directory.namesOf([record.owner])).get(record.owner) ?? record.owner)
    : null;
  const about = facts([
    ['Id', `<code class="key">${escapeHtml(record.id)}</code>`],
    ['Owner', owner === null ? '<span class="muted">(nobody)</span>' : escapeHtml(owner)],
    ['Created (UTC)', escapeHtml(record.created)],
    ['Changed (UTC)', escapeHtml(record.updated)],
  ]);
  const here = recordUrl(state.name, record.id);
  return sendAdminForms(
    request,
    reply,
    admin,
    `Record of ${state.name}`,
    [form],
    ([html]) =>
      backTo(state.name) +
      `<section class="card">${about}</section><section class="card">${resumableFields(ctx, state, html)}</section>` +
      '<section class="card"><h2>Delete</h2>' +
      `<p>${link(`${here}/delete`, 'Delete this record…', ' class="button danger"')}` +
      '</p></section>',
  );
}

/** `/admin/collections/<name>/records/<id>/delete`: ask, then remove. */
async function deleteRecordPage(
  ctx: CollectionPageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  admin: AdminRequest,
  params: { name: string; id: string },
) {
  const record = await ctx.collections.get(admin.principal, params.name, params.id);
  const form = new PageForm({
    request: admin.form,
    formid: 'delete-form',
    csrfToken: admin.csrf,
    // The form library wants a field; the question's answer is the button, this only says "asked".
    fields: [{ id: 'confirm', datatype: 'hidden', default: 'yes' }],
    actions: [{ id: 'remove', method: 'submit', name: 'Delete record', cssClass: 'btn danger' }],
    perform: async () => {
      await ctx.collections.remove(admin.principal, params.name, record.id);
      return { message: `Record ${record.id} deleted.`, redirect: collectionUrl(params.name) };
    },
  });
  return sendAdminForms(
    request,
    reply,
    admin,
    'Delete record',
    [form],
    ([html]) =>
      `<div class="card confirm"><p>Delete the record <code class="key">${escapeHtml(record.id)}</code> of ` +
      `${escapeHtml(params.name)} for good? This cannot be undone.</p>` +
      `${html}<p>${link(recordUrl(params.name, record.id), 'Cancel')}</p></div>`,
  );
}

export function registerRecordPages(app: FastifyInstance, ctx: CollectionPageContext): void {
  const fileBytes = (params: { name: string }) => recordFileBytes(ctx, params.name);
  registerPage(
    app,
    ctx,
    '/admin/collections/:name/new',
    (request, reply, admin) => recordPage(ctx, request, reply, admin, { name: request.params.name }),
    { fileBytes },
  );
  registerPage(
    app,
    ctx,
    '/admin/collections/:name/records/:id',
    (request, reply, admin) => recordPage(ctx, request, reply, admin, request.params),
    { fileBytes },
  );
  registerPage(app, ctx, '/admin/collections/:name/records/:id/delete', (request, reply, admin) =>
    deleteRecordPage(ctx, request, reply, admin, request.params),
  );
}
