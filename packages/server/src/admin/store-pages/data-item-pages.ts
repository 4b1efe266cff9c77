import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml } from '@roost/forms';
import { formatTime } from '../../core/clock.js';
import { isRoostError, RoostError } from '../../core/errors.js';
import { dataStoreErrors, type DataStore, type Item, type ItemWrites } from '../../datastore/index.js';
import { sendAdminForms, type AdminRequest } from '../page-kit/admin-page.js';
import { bulkDelete, sendBulkOutcome } from '../page-kit/bulk-delete.js';
import { PageForm } from '../page-kit/page-form.js';
import { facts, link } from '../page-kit/page-parts.js';
import { dataStoreOf, ownerText, valueFields, valuePreview } from './data-store-pages.js';
import { dataStoreUrl, itemUrl, type StorePageContext } from './store-page-context.js';
import { invalidField } from '../../core/validation.js';

type ItemParams = { store: string; id: string };

/** The value a form sent, as the store keeps it: text as typed, or a finite number. */
function itemValueOf(data: Record<string, unknown>): string | number {
  const text = typeof data.value === 'string' ? data.value : '';
  if (data.type !== 'number') return text;
  const n = text.trim() === '' ? Number.NaN : Number(text.trim());
  if (!Number.isFinite(n)) throw invalidField('value', 'not a number');
  return n;
}

const describe = (store: DataStore) => (field: string, reason: string) => {
  if (field === 'key' && reason === 'too long') return `Too long: at most ${store.options.maxKeyLength} characters.`;
  if (field === 'key' && reason === 'invalid') return 'A key may not hold control characters.';
  if (field === 'value' && reason === 'too long') return `Too long: at most ${store.options.maxValueBytes} bytes.`;
  if (field === 'value' && reason === 'not a number') return 'Not a number.';
  return undefined;
};

/** The item the url names, by its id; a malformed id is as absent as a missing item. */
async function itemOf(store: DataStore, admin: AdminRequest, id: string): Promise<Item> {
  const [item] = /^\d{1,15}$/.test(id) ? await store.get(admin.principal, { id: Number(id) }) : [];
  if (!item) throw dataStoreErrors.item_not_found();
  return item;
}

const backTo = (store: string) => `<p class="actions">${link(dataStoreUrl(store), `← Items of ${store}`)}</p>`;

/** `/admin/data/<store>/new`: create an item (key, value, optional owner). */
async function newItemPage(
  ctx: StorePageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  admin: AdminRequest,
  name: string,
) {
  const store = dataStoreOf(ctx, name);
  const form = new PageForm({
    request: admin.form,
    formid: 'new-item',
    csrfToken: admin.csrf,
    fields: [
      {
        id: 'key',
        name: 'Key',
        datatype: 'string',
        required: true,
        description: `Unique in the store, at most ${store.options.maxKeyLength} characters.`,
      },
      ...valueFields(store, undefined),
      { id: 'owner', name: 'Owner', datatype: 'string', description: 'Name, email or id of a user; empty: you.' },
    ],
    actions: [{ id: 'create', method: 'submit', name: 'Create item' }],
    describe: describe(store),
    perform: async (data) => {
      const key = String(data.key ?? '');
      const input: ItemWrites = { key, value: itemValueOf(data) };
      if (typeof data.owner === 'string' && data.owner !== '') input.owner = data.owner;
      try {
        const [created] = await store.create(admin.principal, input);
        return { message: `Item “${key}” created.`, redirect: itemUrl(name, created?.id ?? 0) };
      } catch (err) {
        // The store names a taken key by the key itself; the form has it at its `key` field.
        if (isRoostError(err) && err.code === 'item_exists')
          throw new RoostError('conflict', 'item_exists', err.message, { fields: [['key', 'exists']] });
        throw err;
      }
    },
  });
  return sendAdminForms(request, reply, admin, `New item in ${name}`, [form], ([html]) => backTo(name) + html);
}

/** `/admin/data/<store>/items/<id>`: the item, its value (edit) and its owner (change). */
async function itemPage(
  ctx: StorePageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  admin: AdminRequest,
  params: ItemParams,
) {
  const store = dataStoreOf(ctx, params.store);
  const item = await itemOf(store, admin, params.id);
  const here = itemUrl(params.store, item.id);
  const valueForm = new PageForm({
    request: admin.form,
    formid: 'value-form',
    csrfToken: admin.csrf,
    fields: valueFields(store, item.value),
    actions: [{ id: 'save', method: 'submit', name: 'Save value' }],
    describe: describe(store),
    perform: async (data) => {
      await store.set(admin.principal, { id: item.id, value: itemValueOf(data) });
      return { message: `Item “${item.key}” saved.`, redirect: here };
    },
  });
  const ownerForm = new PageForm({
    request: admin.form,
    formid: 'owner-form',
    csrfToken: admin.csrf,
    fields: [
      {
        id: 'owner',
        name: 'New owner',
        datatype: 'string',
        required: true,
        default: item.ownerName ?? '',
        description: 'Name, email or id of a user.',
      },
    ],
    actions: [{ id: 'give', method: 'submit', name: 'Change owner', cssClass: 'btn secondary' }],
    fieldAliases: { newOwner: 'owner' },
    perform: async (data) => {
      await store.setOwner(admin.principal, { id: item.id, newOwner: String(data.owner ?? '') });
      return { message: `Item “${item.key}” now belongs to ${String(data.owner)}.`, redirect: here };
    },
  });
  const about = facts([
    ['Key', `<code class="key">${escapeHtml(item.key)}</code>`],
    ['Id', escapeHtml(item.id)],
    ['Owner', ownerText(item)],
    ['Changed', escapeHtml(formatTime(item.updated))],
    ['Value', valuePreview(item.value)],
  ]);
  return sendAdminForms(
    request,
    reply,
    admin,
    `Item of ${params.store}`,
    [valueForm, ownerForm],
    ([value, owner]) =>
      backTo(params.store) +
      `<section class="card">${about}</section>` +
      `<section class="card"><h2>Value</h2>${value}</section>` +
      `<section class="card"><h2>Owner</h2>${owner}</section>` +
      '<section class="card"><h2>Delete</h2>' +
      `<p>${link(`${here}/delete`, 'Delete this item…', ' class="button danger"')}</p></section>`,
  );
}

/** `/admin/data/<store>/items/<id>/delete`: ask, then remove the item. */
async function deletePage(
  ctx: StorePageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  admin: AdminRequest,
  params: ItemParams,
) {
  const store = dataStoreOf(ctx, params.store);
  const item = await itemOf(store, admin, params.id);
  const form = new PageForm({
    request: admin.form,
    formid: 'delete-form',
    csrfToken: admin.csrf,
    // The form library wants a field; the question's answer is the button, this only says "asked".
    fields: [{ id: 'confirm', datatype: 'hidden', default: 'yes' }],
    actions: [{ id: 'remove', method: 'submit', name: 'Delete item', cssClass: 'btn danger' }],
    perform: async () => {
      const removed = await store.remove(admin.principal, { id: item.id });
      return {
        message: removed.length === 1 ? `Item “${item.key}” deleted.` : `Item “${item.key}” was gone already.`,
        redirect: dataStoreUrl(params.store),
      };
    },
  });
  return sendAdminForms(
    request,
    reply,
    admin,
    'Delete item',
    [form],
    ([html]) =>
      `<div class="card confirm"><p>Delete the item <code class="key">${escapeHtml(item.key)}</code> of ` +
      `${escapeHtml(params.store)} for good? This cannot be undone.</p>` +
      `${html}<p>${link(itemUrl(params.store, item.id), 'Cancel')}</p></div>`,
  );
}

/** The item's id as the list's checkbox sends it; anything else is no item. */
const itemIdOf = (id: string) => (/^\d{1,15}$/.test(id) ? Number(id) : null);

/** `/admin/data/<store>/delete`: the bulk delete of the checked items (page-kit/bulk-delete.ts), each by `remove`. */
async function bulkDeletePage(
  ctx: StorePageContext,
  request: FastifyRequest<{ Params: { store: string } }>,
  reply: FastifyReply,
  admin: AdminRequest,
) {
  const name = request.params.store;
  const store = dataStoreOf(ctx, name);
  const outcome = await bulkDelete(request.method, admin.form, {
    noun: ['item', 'items'],
    listUrl: dataStoreUrl(name),
    actionUrl: `${dataStoreUrl(name)}/delete`,
    csrf: admin.csrf,
    async describe(ids) {
      const numbers = ids.map(itemIdOf).filter((n): n is number => n !== null);
      const found: Item[] = [];
      // A read names at most `maxBatch` items (core/config-parts.ts).
      for (let i = 0; i < numbers.length; i += store.options.maxBatch)
        found.push(...(await store.get(admin.principal, { id: numbers.slice(i, i + store.options.maxBatch) })));
      return new Map(found.map((it) => [String(it.id), it.key]));
    },
    async remove(id) {
      const n = itemIdOf(id);
      if (n === null) throw new RoostError('invalid', 'validation_failure', 'This is no item id.');
      return (await store.remove(admin.principal, { id: n })).length > 0;
    },
  });
  return sendBulkOutcome(request, reply, admin, outcome);
}

/** Register the item pages: create, show and edit, delete one, delete the list's checked ones. */
export function registerDataItemPages(app: FastifyInstance, ctx: StorePageContext): void {
  const pages: Array<
    [
      string,
      (request: FastifyRequest<{ Params: ItemParams }>, reply: FastifyReply, admin: AdminRequest) => Promise<unknown>,
    ]
  > = [
    [
      '/admin/data/:store/new',
      (request, reply, admin) => newItemPage(ctx, request, reply, admin, request.params.store),
    ],
    ['/admin/data/:store/items/:id', (request, reply, admin) => itemPage(ctx, request, reply, admin, request.params)],
    [
      '/admin/data/:store/items/:id/delete',
      (request, reply, admin) => deletePage(ctx, request, reply, admin, request.params),
    ],
    ['/admin/data/:store/delete', (request, reply, admin) => bulkDeletePage(ctx, request, reply, admin)],
  ];
  for (const [url, page] of pages) {
    app.route<{ Params: ItemParams }>({
      method: ['GET', 'POST'],
      url,
      handler: async (request, reply) => {
        const admin = await ctx.admin(request, reply);
        return admin ? page(request, reply, admin) : reply;
      },
    });
  }
}
