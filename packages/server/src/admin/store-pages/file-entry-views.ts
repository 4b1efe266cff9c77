import { createReadStream } from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, formatBytes, isUploadedFile, type HTMLForm } from '@roost/forms';
import { formatTime } from '../../core/clock.js';
import { RoostError } from '../../core/errors.js';
import {
  childOf,
  parsePath,
  pathOf,
  type EntryQuery,
  type FileEntry,
  type FilePath,
  type FileStore,
} from '../../filestore/index.js';
import { sendAdminForms, type AdminRequest } from '../page-kit/admin-page.js';
import { PageForm } from '../page-kit/page-form.js';
import { bulkDelete, sendBulkOutcome } from '../page-kit/bulk-delete.js';
import { bulkDeleteForm, listTable, sortOf, sortParam, type ListColumn } from '../page-kit/list-table.js';
import { facts, link, liveRegion, pager, positiveInt, textParam } from '../page-kit/page-parts.js';
import { resumableUploadArea } from '../page-kit/resumable-upload.js';
import { downloadUrl, fileUrl } from './store-page-context.js';

/** Everything a view of one path needs. */
export interface FilePage {
  request: FastifyRequest;
  reply: FastifyReply;
  admin: AdminRequest;
  store: FileStore;
  /** The store's name. */
  name: string;
  path: FilePath;
  /** The entry at `path`; null for the root directory. */
  entry: FileEntry | null;
}

/** The page of a file: its entry is one. */
type FileEntryPage = FilePage & { entry: FileEntry };

const typeOf = (page: FilePage) => page.entry?.type ?? 'd';

const PAGE_SIZE = 50;
const DELETE_DIRECTORY = 'Delete this directory and everything in it…';
const DANGER = ' class="button danger"';

/** The page of a directory, or of a file: `/admin/files/<store>/<path>` (directories end in `/`). */
const urlOf = (page: Pick<FilePage, 'name'>, path: FilePath, type: 'f' | 'd') =>
  fileUrl(page.name, path.segments, type === 'd');
const shown = (path: FilePath) => `/${path.path}`;

/** `store / a / b` with each step linked. */
function breadcrumbs(page: FilePage): string {
  const steps = [link(fileUrl(page.name, [], true), page.name)];
  page.path.segments.forEach((segment, i) => {
    const last = i === page.path.segments.length - 1;
    steps.push(
      last
        ? `<span aria-current="page">${escapeHtml(segment)}</span>`
        : link(fileUrl(page.name, page.path.segments.slice(0, i + 1), true), segment),
    );
  });
  return (
    `<nav class="breadcrumbs" aria-label="Path">${link('/admin/files', 'File stores')} / ` +
    `${steps.join(' / ')}</nav>`
  );
}

/** Send the page of `forms` under the path's breadcrumbs. */
const answer = (page: FilePage, title: string, forms: HTMLForm[], body: (html: string[]) => string) =>
  sendAdminForms(page.request, page.reply, page.admin, title, forms, (htmls) => breadcrumbs(page) + body(htmls));

const formBase = (page: FilePage, formid: string) => ({ request: page.admin.form, formid, csrfToken: page.admin.csrf });

/** Move or rename: the new path inside the store. */
function moveForm(page: FilePage): PageForm {
  return new PageForm({
    ...formBase(page, 'move-form'),
    fields: [
      {
        id: 'newpath',
        name: 'New path',
        datatype: 'string',
        required: true,
        default: shown(page.path),
        description: 'Inside this store, from its root: /folder/new-name',
      },
    ],
    actions: [{ id: 'move', method: 'submit', name: 'Move or rename', cssClass: 'btn secondary' }],
    perform: async (data) => {
      const newpath = String(data.newpath);
      await page.store.move(page.admin.principal, page.path, { newpath });
      const target = parsePath(newpath, 'newpath');
      return {
        message: `Moved ${shown(page.path)} to ${shown(target)}.`,
        redirect: urlOf(page, target, typeOf(page)),
      };
    },
  });
}

function ownerForm(page: FilePage, owner: string): PageForm {
  return new PageForm({
    ...formBase(page, 'owner-form'),
    fields: [
      {
        id: 'owner',
        name: 'New owner',
        datatype: 'string',
        required: true,
        default: owner,
        description: 'Name, email or id of a user.',
      },
    ],
    actions: [{ id: 'give', method: 'submit', name: 'Change owner', cssClass: 'btn secondary' }],
    fieldAliases: { newOwner: 'owner' },
    perform: async (data) => {
      await page.store.setOwner(page.admin.principal, page.path, { owner: String(data.owner ?? '') });
      return {
        message: `${shown(page.path)} now belongs to ${String(data.owner)}.`,
        redirect: urlOf(page, page.path, typeOf(page)),
      };
    },
  });
}

async function ownerOf(page: FilePage): Promise<string> {
  return (await page.store.getOwner(page.admin.principal, page.path)) ?? '';
}

/**
 * Upload into this directory: through the form library's file widget, by ajax with its progress
 * bar; where the store takes resumable uploads, by tus instead (`uploadArea`).
 */
function uploadForm(page: FilePage): PageForm {
  return new PageForm({
    ...formBase(page, 'upload-form'),
    use_ajax: true,
    // The form library's bar only where no tus script takes the file (`uploadArea`) and shows its own.
    uploadProgressBar: page.store.uploads ? 'none' : 'auto',
    fields: [
      {
        id: 'file',
        name: 'File',
        datatype: 'file',
        required: true,
        description: `At most ${formatBytes(page.store.options.maxFileBytes)}.`,
      },
      { id: 'name', name: 'Save as', datatype: 'string', description: "Empty: the file's own name." },
      { id: 'replace', name: 'Replace a file of the same name', datatype: 'checkbox' },
    ],
    actions: [{ id: 'upload', method: 'submit', name: 'Upload' }],
    describe: (field, reason) =>
      field === 'name' && reason === 'exists'
        ? 'A file or directory of this name exists here; tick “Replace” to overwrite a file.'
        : undefined,
    perform: async (data) => {
      const file = data.file;
      if (!isUploadedFile(file) || !file.path) throw new TypeError('the upload form read no file');
      const name = typeof data.name === 'string' && data.name !== '' ? data.name : file.filename;
      const target = childOf(page.path, name, 'name');
      const upload = { stream: createReadStream(file.path), mime: file.mime, size: file.size };
      try {
        if (data.replace === true) await page.store.write(page.admin.principal, target, {}, upload);
        else await page.store.create(page.admin.principal, page.path, { name }, upload);
      } finally {
        // A refusal before the store read the file leaves the stream open: close it.
        upload.stream.destroy();
      }
      return { message: `Uploaded “${name}” (${formatBytes(file.size)}).`, redirect: urlOf(page, page.path, 'd') };
    },
  });
}

/** With JavaScript, the upload form sends its file by tus where the store takes resumable uploads. */
function uploadArea(page: FilePage, html = ''): string {
  return page.store.uploads ? resumableUploadArea(html, { store: page.name, dir: page.path.path }) : html;
}

function mkdirForm(page: FilePage): PageForm {
  return new PageForm({
    ...formBase(page, 'mkdir-form'),
    fields: [{ id: 'dirname', name: 'Name', datatype: 'string', required: true }],
    actions: [{ id: 'mkdir', method: 'submit', name: 'Create directory', cssClass: 'btn secondary' }],
    fieldAliases: { name: 'dirname' },
    perform: async (data) => {
      const name = String(data.dirname);
      await page.store.create(page.admin.principal, page.path, { name, type: 'd' });
      return { message: `Directory “${name}” created.`, redirect: urlOf(page, page.path, 'd') };
    },
  });
}

/** The columns a directory sorts by (the file store's `list` sorts); none: directories first, then names. */
const ENTRY_SORTS = ['name', 'size', 'mime', 'mtime'] as const;
/** The entry kinds a directory filters by (`?type=f`, `?type=d`). */
const ENTRY_TYPES = [
  ['', 'All'],
  ['f', 'Files'],
  ['d', 'Directories'],
] as const;

/** The directory's list state from its query: sort, type, start; a sort or type that is none is refused. */
function entryQuery(page: FilePage) {
  const q = page.admin.form.query ?? {};
  const sort = sortOf(textParam(q.sort), ENTRY_SORTS);
  const type = textParam(q.type);
  if (!ENTRY_TYPES.some(([id]) => id === type))
    throw new RoostError('invalid', 'validation_failure', 'Show all entries, files (f) or directories (d).', {
      fields: [['type', 'invalid']],
    });
  return { sort, type: type as '' | 'f' | 'd', start: positiveInt(q.start, 1) };
}

/**
 * A directory: its entries (directories first, or sorted by a column's header; all, files or
 * directories), checked ones deleted in bulk (`?delete-selected`), upload, new directory;
 * below the root also move, owner, delete.
 */
export async function directoryView(page: FilePage) {
  const query = entryQuery(page);
  const { entries, total } = await page.store.list(page.admin.principal, page.path, {
    sort: (query.sort?.key as EntryQuery['sort']) ?? 'type',
    order: query.sort?.descending ? '>' : '<',
    ...(query.type ? { type: query.type } : {}),
    start: query.start,
    size: PAGE_SIZE,
  });
  const childPath = (e: FileEntry) => pathOf([...page.path.segments, e.name]);
  const columns: ListColumn<FileEntry>[] = [
    {
      label: 'Name',
      cell: (e) =>
        (e.type === 'd' ? '<span class="tag">dir</span> ' : '') + link(urlOf(page, childPath(e), e.type), e.name),
      sort: 'name',
    },
    {
      label: 'Size',
      cell: (e) => (e.type === 'd' ? '' : escapeHtml(formatBytes(e.size))),
      className: 'num',
      sort: 'size',
    },
    { label: 'Type', cell: (e) => escapeHtml(e.mime), sort: 'mime' },
    { label: 'Changed', cell: (e) => escapeHtml(formatTime(e.mtime)), sort: 'mtime' },
    {
      label: 'Download',
      cell: (e) => (e.type === 'f' ? link(downloadUrl(page.name, childPath(e).segments), 'Download', ' download') : ''),
    },
  ];
  const forms = [uploadForm(page), mkdirForm(page)];
  const below = page.path.path !== '';
  const owner = below ? await ownerOf(page) : '';
  if (below) forms.push(moveForm(page), ownerForm(page, owner));
  const here = urlOf(page, page.path, 'd');
  const href = (change: { start?: number; sort?: string; type?: string }) => {
    const state = { sort: query.sort ? sortParam(query.sort) : '', type: query.type, start: query.start, ...change };
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(state)) if (v !== '' && !(k === 'start' && v === 1)) params.set(k, String(v));
    const text = params.toString();
    return `${here}${text ? `?${text}` : ''}`;
  };
  const list = { start: query.start, size: PAGE_SIZE, total, shown: entries.length };
  const kinds = ENTRY_TYPES.map(([id, name]) =>
    id === query.type
      ? `<li><span aria-current="true">${name}</span></li>`
      : `<li>${link(href({ type: id, start: 1 }), name)}</li>`,
  );
  return answer(
    page,
    below ? `Directory ${page.path.name}` : `File store ${page.name}`,
    forms,
    ([upload, mkdir, move, give]) =>
      `<nav class="tabs" aria-label="Show"><ul>${kinds.join('')}</ul></nav>` +
      liveRegion(
        page.path.path ? `files/${page.name}/${page.path.path}` : `files/${page.name}`,
        pager('entries', list, (start) => href({ start })) +
          listTable({
            caption: `Entries of ${shown(page.path)}`,
            columns,
            rows: entries,
            empty: query.type ? 'No entry of this kind here.' : 'This directory is empty.',
            sort: query.sort,
            sortHref: (sort) => href({ sort, start: 1 }),
            select: { form: 'bulk-delete', value: (e) => e.name, label: (e) => e.name },
          }) +
          (entries.length
            ? bulkDeleteForm('bulk-delete', `${here}?delete-selected`, page.admin.csrf, 'Delete the selected entries…')
            : ''),
      ) +
      `<div class="columns"><section class="card"><h2>Upload a file</h2>${uploadArea(page, upload)}</section>` +
      `<section class="card"><h2>New directory</h2>${mkdir}</section></div>` +
      (below
        ? `<div class="columns"><section class="card"><h2>Move or rename</h2>${move}</section>` +
          '<section class="card"><h2>Owner</h2><p>Owned by ' +
          `${owner ? escapeHtml(owner) : '<span class="muted">(nobody)</span>'}.</p>${give}</section></div>` +
          '<section class="card"><h2>Delete</h2>' +
          `<p>${link(`${here}?delete`, DELETE_DIRECTORY, DANGER)}</p></section>`
        : ''),
  );
}

/**
 * `?delete-selected`: the bulk delete of a directory's checked entries (page-kit/bulk-delete.ts),
 * each by the store's `remove`, a directory with everything in it (the question says so).
 */
export async function bulkDeleteView(page: FilePage) {
  const here = urlOf(page, page.path, 'd');
  const outcome = await bulkDelete(page.request.method, page.admin.form, {
    noun: ['entry', 'entries'],
    note: 'A directory goes with everything in it.',
    listUrl: here,
    actionUrl: `${here}?delete-selected`,
    csrf: page.admin.csrf,
    async remove(name) {
      // childOf refuses a name that is no name (a slash, "..", control characters): no path leaves the directory.
      const target = childOf(page.path, name, 'name');
      return (await page.store.remove(page.admin.principal, target, { recursive: true })) > 0;
    },
  });
  return sendBulkOutcome(page.request, page.reply, page.admin, outcome);
}

/** A file: its facts, download, move, owner, delete. */
export async function fileView(page: FileEntryPage) {
  const { entry } = page;
  const owner = await ownerOf(page);
  const about = facts([
    ['Name', escapeHtml(entry.name)],
    ['Size', escapeHtml(`${formatBytes(entry.size)} (${entry.size} bytes)`)],
    ['Type', escapeHtml(entry.mime)],
    ['Changed', escapeHtml(formatTime(entry.mtime))],
    ['Created', escapeHtml(formatTime(entry.ctime))],
    ['Owner', owner ? escapeHtml(owner) : '<span class="muted">(nobody)</span>'],
  ]);
  const here = urlOf(page, page.path, 'f');
  const download = link(downloadUrl(page.name, page.path.segments), 'Download', ' class="button" download');
  return answer(
    page,
    `File ${entry.name}`,
    [moveForm(page), ownerForm(page, owner)],
    ([move, give]) =>
      `<section class="card">${about}<p class="actions">${download}</p></section>` +
      `<div class="columns"><section class="card"><h2>Move or rename</h2>${move}</section>` +
      `<section class="card"><h2>Owner</h2>${give}</section></div>` +
      '<section class="card"><h2>Delete</h2>' +
      `<p>${link(`${here}?delete`, 'Delete this file…', ' class="button danger"')}</p></section>`,
  );
}

/** `?delete`: ask, then remove the file, or the directory with everything below it. */
export async function deleteView(page: FilePage) {
  const directory = typeOf(page) === 'd';
  const parent = parsePath(page.path.parent);
  const form = new PageForm({
    ...formBase(page, 'delete-form'),
    // The form library wants a field; the question's answer is the button, this only says "asked".
    fields: [{ id: 'confirm', datatype: 'hidden', default: 'yes' }],
    actions: [
      {
        id: 'remove',
        method: 'submit',
        name: directory ? 'Delete directory and contents' : 'Delete file',
        cssClass: 'btn danger',
      },
    ],
    perform: async () => {
      const count = await page.store.remove(page.admin.principal, page.path, { recursive: true });
      return {
        message: `Deleted ${shown(page.path)}${directory ? ` (${count} ${count === 1 ? 'entry' : 'entries'})` : ''}.`,
        redirect: urlOf(page, parent, 'd'),
      };
    },
  });
  const children = directory ? (await page.store.list(page.admin.principal, page.path, { size: 1 })).total : 0;
  const inside =
    children > 0
      ? ` and everything in it (${children} ${children === 1 ? 'entry' : 'entries'} directly inside, and all below)`
      : ' (it is empty)';
  const what = directory
    ? `the directory <code class="key">${escapeHtml(shown(page.path))}</code>${inside}`
    : `the file <code class="key">${escapeHtml(shown(page.path))}</code>`;
  return answer(
    page,
    directory ? 'Delete directory' : 'Delete file',
    [form],
    ([html]) =>
      `<div class="card confirm"><p>Delete ${what} for good? This cannot be ` +
      `undone.</p>${html}<p>${link(urlOf(page, page.path, typeOf(page)), 'Cancel')}</p></div>`,
  );
}
