/**
 * The admin's resumable uploads (issue 41, item 4), served as /static/roost-uploads.js
 * (admin/index.ts) and loaded by the places page-kit/resumable-upload.ts marks: the file store
 * page's upload form and the record form's file fields. A module that loads the connector Roost
 * serves (/static/roost-client.js, http/client-bundle.ts) and sends the chosen file by tus with
 * its `upload(path, file, { resumable: true })` (packages/client/src/resumable.ts), in parts of
 * `CHUNK` bytes: a `<progress>` with a label and its percentage, a Cancel button, and the
 * refusal in words. The connector keeps the upload's URL in localStorage under the file's name,
 * size, time and the target, so the same file chosen again, after a cut, a Cancel or a page
 * reload, goes on from the bytes the server holds. Without JavaScript the forms post the file as
 * before (file-entry-views.ts `uploadForm`, record-pages.ts `storeUploads`). Plain script: the
 * pages' CSP allows scripts from Roost.
 *
 * The file store page: the file goes to the directory under "Save as" (or its own name); without
 * "Replace" an existing entry of that name is refused first, as the form's own handler does.
 * The record form: each chosen file goes to `/<collection>/` of its field's store under a name
 * made of the file's (name, size, time: the same file gets the same name, so a reload resumes
 * it) and its path goes into the field; then the form is sent without the file.
 */
export const UPLOAD_SCRIPT = `import { filestore } from '/static/roost-client.js';
// A part per PATCH: a cut costs at most this much again; small enough for proxies' body limits.
const CHUNK = 4 * 1024 * 1024;
const stores = new Map();
const storeOf = (name) => {
  if (!stores.has(name)) stores.set(name, filestore(name, { credentials: 'same-origin' }));
  return stores.get(name);
};
const sizeText = (n) =>
  n < 1024 ? n + ' B' : n < 1048576 ? (n / 1024).toFixed(1) + ' KB' : (n / 1048576).toFixed(1) + ' MB';
let count = 0;

/** The progress, the Cancel button and the messages of one form, made once, after the form. */
function panelOf(form) {
  if (form.roostUpload) return form.roostUpload;
  const id = 'upload-' + ++count;
  const box = document.createElement('div');
  box.className = 'upload-panel';
  box.innerHTML =
    '<div class="upload-progress" hidden><label for="' + id + '"></label> ' +
    '<progress id="' + id + '" max="100" value="0"></progress> ' +
    '<span class="upload-percent" aria-hidden="true"></span> ' +
    '<button type="button" class="btn secondary">Cancel upload</button></div>' +
    '<p class="upload-error error" role="alert" hidden></p><p class="upload-status" role="status"></p>';
  form.after(box);
  const [progress, error, status] = box.children;
  const panel = {
    label: progress.querySelector('label'),
    bar: progress.querySelector('progress'),
    percent: progress.querySelector('.upload-percent'),
    cancel: progress.querySelector('button'),
    controller: null,
    start(name) {
      error.hidden = true;
      status.textContent = 'Uploading “' + name + '”…';
      panel.label.textContent = 'Upload of “' + name + '”';
      panel.show(0, 0);
      progress.hidden = false;
      panel.controller = new AbortController();
      for (const button of form.querySelectorAll('button[type=submit]')) button.disabled = true;
      return panel.controller.signal;
    },
    show(loaded, total) {
      const percent = total ? Math.floor((loaded / total) * 100) : 0;
      panel.bar.value = percent;
      const text = percent + ' % (' + sizeText(loaded) + ' of ' + sizeText(total) + ')';
      panel.bar.setAttribute('aria-valuetext', text);
      panel.percent.textContent = text;
    },
    end(words, failed) {
      progress.hidden = true;
      panel.controller = null;
      for (const button of form.querySelectorAll('button[type=submit]')) button.disabled = false;
      error.hidden = !failed;
      error.textContent = failed ? words : '';
      status.textContent = failed ? '' : words;
    },
  };
  panel.cancel.addEventListener('click', () => panel.controller?.abort());
  form.roostUpload = panel;
  return panel;
}

/** A refusal in words: the server's message, or what a cut or Cancel means for the next try. */
function wordsOf(error) {
  if (error && error.code === 'aborted')
    return 'The upload was cancelled. Choose the same file again to go on where it stopped.';
  if (error && error.code === 'network_error')
    return 'The connection to the server was lost. Choose the same file again to go on where it stopped.';
  return (error && error.message) || 'The upload failed.';
}

/** Send file to path of store by tus with the form's panel; resolves once stored. */
function send(form, store, path, file) {
  const panel = panelOf(form);
  const signal = panel.start(file.name);
  return storeOf(store).upload(path, file, {
    resumable: true,
    chunkSize: CHUNK,
    signal,
    onProgress: ({ loaded, total }) => panel.show(loaded, total ?? file.size),
  });
}

const isMissing = (error) => error && (error.code === 'not_found' || error.status === 404);

async function exists(files, path) {
  try {
    await files.getItem(path);
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

/** The file store page: data-store and data-dir on the area around the upload form. */
async function uploadToStore(form, area, file) {
  const field = (name) => form.querySelector('[name="' + name + '"]');
  const name = (field('name')?.value ?? '').trim() || file.name;
  const dir = area.dataset.dir ?? '';
  const path = dir ? dir + '/' + name : name;
  const panel = panelOf(form);
  if (name.includes('/')) return panel.end('A name cannot contain “/”: upload into the directory itself.', true);
  const files = storeOf(area.dataset.store);
  try {
    if (!field('replace')?.checked && (await exists(files, path)))
      return panel.end('A file or directory of this name exists here; tick “Replace” to overwrite a file.', true);
    await send(form, area.dataset.store, path, file);
    form.reset();
    panel.end('Uploaded “' + name + '” (' + sizeText(file.size) + ').', false);
  } catch (error) {
    panel.end(wordsOf(error), true);
  }
}

/** The same file (name, size, time) gets the same name in the folder, so a reload resumes it. */
async function savedName(file) {
  const text = new TextEncoder().encode(file.name + '\\n' + file.size + '\\n' + file.lastModified);
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', text));
  return [...hash.slice(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join('') + '-' + file.name;
}

/** The record form: data-collection and data-file-fields (field: store) on its area. */
async function uploadFields(form, area, chosen, submitter) {
  const collection = area.dataset.collection;
  const panel = panelOf(form);
  try {
    for (const { input, field, store } of chosen) {
      const file = input.files[0];
      const files = storeOf(store);
      if (!(await exists(files, collection))) await files.newItem('', collection, { type: 'd' });
      const path = collection + '/' + (await savedName(file));
      await send(form, store, path, file);
      const target = form.querySelector('[name="' + field + '"]');
      if (target) target.value = path;
      input.value = '';
    }
  } catch (error) {
    return panel.end(wordsOf(error), true);
  }
  panel.end('Uploaded; saving the record…', false);
  form.requestSubmit(submitter ?? undefined);
}

// The panels exist from the start: a live region (role=status, alert) is announced when it changes.
const forms = document.querySelectorAll('[data-resumable-upload] form, [data-resumable-record] form');
for (const form of forms) panelOf(form);

// Before the form library's own handler (capture on the document): with a file chosen, this one sends it.
document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || form.roostUpload?.controller) return;
  const store = form.closest('[data-resumable-upload]');
  const record = form.closest('[data-resumable-record]');
  if (store) {
    const file = form.querySelector('input[type=file]')?.files?.[0];
    if (!file) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    void uploadToStore(form, store, file);
  } else if (record) {
    const fields = JSON.parse(record.dataset.fileFields || '{}');
    const chosen = Object.entries(fields).flatMap(([field, fileStore]) => {
      const input = form.querySelector('input[type=file][name="' + field + '-upload"]');
      return input?.files?.[0] ? [{ input, field, store: fileStore }] : [];
    });
    if (chosen.length === 0) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    void uploadFields(form, record, chosen, event.submitter);
  }
}, true);
`;
