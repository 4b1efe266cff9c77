/* A tiny node:http server rendering demo forms for the browser test. It feeds the library the
   way a host does: node request → Web Request → FormRequest → form.process() → reply. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import {
  HTMLForm,
  ObjectForm,
  browserSafe,
  presets,
  createContentView,
  escapeHtml,
  formAssets,
  formRequestFromWeb,
  type FieldConf,
  type FormInit,
  type FormRequest,
  type KyselyContent,
  type MessageStore,
  type ProcessResult,
  WizardForm,
} from '../../src/index.js';

/** Bootstrap 5's stylesheet from npm (a devDependency): the preset is checked as a host styles it. */
const bootstrapCss = createRequire(import.meta.url).resolve('bootstrap/dist/css/bootstrap.min.css');

const fields: FieldConf[] = [
  { id: 'name', name: 'Name', required: true, description: 'Your full name' },
  { id: 'email', name: 'E-mail', datatype: 'email', required: true },
  {
    id: 'contact',
    name: 'Contact by',
    datatype: 'list',
    settings: { controlset: true },
    listItems: [
      { id: 'mail', name: 'E-mail' },
      { id: 'phone', name: 'Phone', fields: [{ id: 'phone', name: 'Phone number' }] },
    ],
  },
];

/** A sign-up as a browser sees it: required fields, a controlset whose item asks for a required field. */
const validatedFields: FieldConf[] = [
  { id: 'name', name: 'Name', required: true },
  { id: 'email', name: 'E-mail', datatype: 'email', required: true },
  {
    id: 'contact',
    name: 'Contact by',
    datatype: 'list',
    required: true,
    settings: { controlset: true },
    listItems: [
      { id: 'mail', name: 'E-mail' },
      { id: 'phone', name: 'Phone', fields: [{ id: 'phone', name: 'Phone number', required: true }] },
    ],
  },
];
const withCancel = [
  { id: 'default', method: 'startForm', hidden: true },
  { id: 'send', method: 'processForm', name: 'Send', cssClass: 'btn btn-primary' },
  { id: 'cancel', method: 'cancel', name: 'Cancel', options: { redirectCancel: '/cancelled' } },
];

/** Every kind of widget, for the accessibility check (test/accessibility.test.ts). */
const everyWidget: FieldConf[] = [
  { id: 'name', name: 'Name', required: true, description: 'As you like to be called' },
  { id: 'email', name: 'E-mail', datatype: 'email', required: true },
  { id: 'password', name: 'Password', datatype: 'password', required: true },
  { id: 'born', name: 'Born', datatype: 'date' },
  { id: 'about', name: 'About you', datatype: 'text' },
  {
    id: 'size',
    name: 'Size',
    datatype: 'list',
    required: true,
    settings: { addempty: true },
    listItems: [
      { id: 's', name: 'Small' },
      { id: 'm', name: 'Medium' },
    ],
  },
  {
    id: 'contact',
    name: 'Contact by',
    datatype: 'radio',
    required: true,
    listItems: [
      { id: 'mail', name: 'Mail' },
      { id: 'phone', name: 'Phone' },
    ],
  },
  {
    id: 'topics',
    name: 'Topics',
    datatype: 'checkbox',
    listItems: [
      { id: 'news', name: 'News' },
      { id: 'offers', name: 'Offers' },
    ],
  },
  { id: 'terms', name: 'I accept the terms', datatype: 'checkbox', required: true },
  { id: 'avatar', name: 'Avatar', datatype: 'file' },
  { id: 'home', name: 'Home', datatype: 'group', fields: [{ id: 'street', name: 'Street', required: true }] },
  { id: 'others', name: 'Address', datatype: 'repeat', minItems: 1, fields: [{ id: 'street', name: 'Street' }] },
];

/** Names already taken, for the live check of an async validator (test/browser-live.test.ts). */
const taken = new Set(['ada', 'root']);
const liveFields: FieldConf[] = [
  {
    id: 'username',
    name: 'User name',
    required: true,
    minLength: 3,
    validator: async (value) => (taken.has(String(value)) ? 'Name taken' : undefined),
  },
  { id: 'email', name: 'E-mail', datatype: 'email', required: true },
  { id: 'code', name: 'Code', pattern: '[A-Z]{3}' },
  {
    id: 'pairs',
    name: 'Pairs',
    datatype: 'number',
    min: 0,
    validator: browserSafe((value) => (Number(value) % 2 ? 'Must be even' : undefined), ['Must be even']),
  },
  {
    id: 'nick',
    name: 'Nickname',
    validator: browserSafe((value) => (String(value).includes(' ') ? 'No spaces' : undefined), ['No spaces']),
  },
  { id: 'guests', name: 'Guest', datatype: 'repeat', fields: [{ id: 'name', name: 'Name', required: true }] },
];

const isBusiness = { scope: '#/properties/kind', schema: { const: 'business' } };
const ruleFields: FieldConf[] = [
  {
    id: 'kind',
    name: 'Customer',
    datatype: 'radio',
    required: true,
    listItems: [
      { id: 'private', name: 'Private' },
      { id: 'business', name: 'Business' },
    ],
  },
  { id: 'company', name: 'Company', required: true, rule: { effect: 'SHOW', condition: isBusiness } },
  { id: 'vat', name: 'VAT number', rule: { effect: 'REQUIRE', condition: isBusiness } },
  { id: 'news', name: 'Send news', datatype: 'checkbox' },
  {
    id: 'topic',
    name: 'Topic',
    rule: { effect: 'ENABLE', condition: { scope: '#/properties/news', schema: { const: true } } },
  },
  {
    id: 'offices',
    name: 'Office',
    datatype: 'repeat',
    fields: [
      {
        id: 'type',
        name: 'Type',
        datatype: 'list',
        listItems: [
          { id: 'branch', name: 'Branch' },
          { id: 'hq', name: 'Head office' },
        ],
      },
      {
        id: 'city',
        name: 'City',
        required: true,
        rule: { effect: 'HIDE', condition: { scope: '#/properties/type', schema: { const: 'hq' } } },
      },
    ],
  },
];

const pages: Record<string, FormInit> = {
  // Submitted empty on purpose to show the errors: no browser validation in the way.
  '/a11y': { fields: everyWidget, formid: 'a11y', novalidate: true },
  '/a11y-bootstrap': { fields: everyWidget, formid: 'a11y', novalidate: true, widget: presets.bootstrap5 },
  // The browser's own validation on (no `novalidate`), as a host renders a form by default.
  '/validated': { fields: validatedFields, actions: withCancel, formid: 'signup' },
  '/groups': {
    fields: [
      { id: 'name', name: 'Name', required: true },
      {
        id: 'addresses',
        name: 'Address',
        datatype: 'repeat',
        fields: [
          { id: 'street', name: 'Street', required: true },
          { id: 'city', name: 'City' },
        ],
      },
    ],
    formid: 'people',
  },
  // Repeats at depth: in a group and in a repeat (test/browser-repeats.test.ts).
  '/nested': {
    fields: [
      { id: 'name', name: 'Name' },
      {
        id: 'company',
        name: 'Company',
        datatype: 'group',
        fields: [
          { id: 'cname', name: 'Company name' },
          { id: 'offices', name: 'Office', datatype: 'repeat', fields: [{ id: 'city', name: 'City' }] },
        ],
      },
      {
        id: 'floors',
        name: 'Floor',
        datatype: 'repeat',
        maxItems: 2,
        fields: [
          { id: 'level', name: 'Level' },
          { id: 'rooms', name: 'Room', datatype: 'repeat', fields: [{ id: 'no', name: 'Number' }] },
        ],
      },
    ],
    formid: 'nest',
    novalidate: true,
  },
  // An upload kept across a reply with errors (test/browser-repeats.test.ts).
  '/kept': {
    fields: [
      { id: 'title', name: 'Title', required: true },
      { id: 'doc', name: 'Document', datatype: 'file', required: true },
    ],
    formid: 'kept',
    novalidate: true,
  },
  '/constraints': {
    fields: [
      { id: 'code', name: 'Code', pattern: '[A-Z]{3}-\\d+' },
      { id: 'age', name: 'Age', datatype: 'number', min: 18, max: 120 },
      { id: 'email', name: 'E-mail', datatype: 'email' },
    ],
    formid: 'limits',
  },
  '/validated-skip': { fields: validatedFields, actions: withCancel, formid: 'signup', skipUnselectedControls: true },
  '/plain': { fields, novalidate: true },
  '/ajax': { fields, novalidate: true, use_ajax: true, formid: 'ajaxform' },
  // A field named "action" shadows the form element's own \`action\` property in the DOM.
  '/ajax-action-field': {
    fields: [
      {
        id: 'action',
        name: 'Decision',
        datatype: 'list',
        required: true,
        listItems: [
          { id: 'yes', name: 'Yes' },
          { id: 'no', name: 'No' },
        ],
      },
    ],
    use_ajax: true,
    formid: 'decide',
    action: '/ajax-action-field',
  },
  '/upload': {
    fields: [
      { id: 'title', name: 'Title' },
      { id: 'doc', name: 'Document', datatype: 'file', required: true },
    ],
    use_ajax: true,
    formid: 'up',
  },
  '/upload-always': {
    fields: [{ id: 'doc', name: 'Document', datatype: 'file', required: true }],
    use_ajax: true,
    uploadProgressBar: 'always',
    formid: 'up',
  },
  // Validation as you type (test/browser-live.test.ts); the server's messages on submit too.
  '/live': { fields: liveFields, formid: 'live', liveValidation: true, novalidate: true },
  // The same under a Content-Security-Policy without 'unsafe-eval' (test/browser-live.test.ts).
  '/live-csp': { fields: liveFields, formid: 'live', liveValidation: true, novalidate: true },
  // Rules at the top and in the items of a repeat (test/browser-rules.test.ts).
  '/rules': { fields: ruleFields, formid: 'rules' },
  // The same checked as you type: a rule that hides a field clears its error (test/browser-rules.test.ts).
  '/rules-live': { fields: ruleFields, formid: 'rules', liveValidation: true, novalidate: true },
  // A controlset controlled by checkboxes (test/browser-rules.test.ts): its fields are rules'.
  '/controlset-checks': {
    formid: 'rules',
    fields: [
      {
        id: 'via',
        name: 'Send by',
        datatype: 'checkbox',
        settings: { controlset: true },
        listItems: [
          { id: 'post', name: 'Post', fields: [{ id: 'street', name: 'Street', required: true }] },
          { id: 'mail', name: 'E-mail', fields: [{ id: 'cc', name: 'Copy to' }] },
        ],
      },
    ],
  },
};

/** Wizards (test/browser-wizard.test.ts): two steps, an upload and a repeat; as full pages and over ajax. */
const wizard: FormInit = {
  fields: [
    { id: 'email', name: 'E-mail', datatype: 'email', required: true },
    { id: 'name', name: 'Name' },
    { id: 'avatar', name: 'Avatar', datatype: 'file', required: true },
    { id: 'addresses', name: 'Address', datatype: 'repeat', fields: [{ id: 'street', name: 'Street' }] },
  ],
  subsets: { account: { fields: ['email', 'name'] }, details: { fields: ['avatar', 'addresses'] } },
  formid: 'wiz',
  novalidate: true,
};
const wizards: Record<string, FormInit> = { '/wizard': wizard, '/wizard-ajax': { ...wizard, use_ajax: true } };
const wizardSteps = [
  { subset: 'account', name: 'Account' },
  { subset: 'details', name: 'Details' },
];

export interface DemoServer {
  url: string;
  uploads: number[];
  /** The data of every successful submit, in order. */
  received: Record<string, unknown>[];
  close(): Promise<void>;
}

/** Slows reading the body down so that the browser's upload takes a few seconds. */
function throttled(req: IncomingMessage, delayMs: number): Readable {
  return Readable.from(
    (async function* () {
      for await (const chunk of req) {
        await sleep(delayMs);
        yield chunk as Buffer;
      }
    })(),
  );
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  uploads: number[],
  content: KyselyContent | undefined,
  received: Record<string, unknown>[],
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const asset = url.pathname.startsWith('/forms-static/')
    ? formAssets[url.pathname.slice('/forms-static/'.length)]
    : undefined;
  if (asset) {
    res.writeHead(200, { 'Content-Type': asset.contentType }).end(asset.body);
    return;
  }
  if (url.pathname === '/bootstrap.css') {
    res.writeHead(200, { 'Content-Type': 'text/css' }).end(readFileSync(bootstrapCss));
    return;
  }
  if (url.pathname === '/cancelled') {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Cancelled</title>');
    return;
  }
  const init = pages[url.pathname] ?? wizards[url.pathname];
  if (!init && !(content && url.pathname.startsWith('/content/'))) {
    res.writeHead(404).end('not found');
    return;
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const body = hasBody ? (url.pathname.startsWith('/upload') ? throttled(req, 10) : Readable.from(req)) : undefined;
  const webRequest = new Request(url, {
    method: req.method,
    headers: Object.entries(req.headers).flatMap(([k, v]) =>
      typeof v === 'string' ? [[k, v] as [string, string]] : [],
    ),
    body: body ? (Readable.toWeb(body) as ReadableStream) : undefined,
    ...(body ? { duplex: 'half' } : {}),
  } as RequestInit);
  const request = await formRequestFromWeb(webRequest);
  if (!init) {
    await contentPage(url.pathname.slice('/content/'.length), request, res, content!);
    return;
  }
  if (wizards[url.pathname]) {
    const form = new WizardForm({ ...init, request, steps: wizardSteps, secret: 'the demo secret, thirty-two chars' });
    const result = await form.process({ success_message: 'Thank you!' });
    if (result.data) received.push({ ...result.data });
    await reply(res, form, result);
    return;
  }
  const form = new HTMLForm({
    ...init,
    request,
    actions: init.actions ?? [
      { id: 'default', method: 'startForm', hidden: true },
      { id: 'send', method: 'processForm', name: 'Send', cssClass: 'btn btn-primary' },
    ],
  });
  form.listenEvent('success', ({ data }) => {
    const doc = (data as { doc?: { size: number } }).doc;
    if (doc) uploads.push(doc.size);
    received.push({ ...(data as Record<string, unknown>) });
  });
  const head = url.pathname.endsWith('-bootstrap') ? '<link rel="stylesheet" href="/bootstrap.css">' : '';
  if (url.pathname.endsWith('-csp')) res.setHeader('Content-Security-Policy', "script-src 'self'");
  await reply(res, form, await form.process({ success_message: 'Thank you!' }), [], head);
}

/** Sends the form's own response, or a page with the form (and flashed messages before it). */
async function reply(
  res: ServerResponse,
  form: HTMLForm,
  { html, response }: ProcessResult,
  flashed: string[] = [],
  head = '',
): Promise<void> {
  if (response) {
    res.writeHead(response.status, response.headers).end(response.body);
    return;
  }
  const notes = flashed.map((m) => `<p class="flash" role="status">${escapeHtml(m)}</p>`).join('');
  const page =
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    `<title>Demo</title>${head}${await form.htmlHead()}</head><body><main>${notes}${html}</main></body></html>`;
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
}

/** One flash store: the browser test is a single user. */
const flash: MessageStore = { messages: [] };

/** `/content/new` creates an article under the root and redirects to it; `/content/<id>` edits it. */
async function contentPage(
  id: string,
  request: FormRequest,
  res: ServerResponse,
  content: KyselyContent,
): Promise<void> {
  const context = id === 'new' ? await content.root() : await content.get(decodeURIComponent(id));
  if (!context) {
    res.writeHead(404).end('not found');
    return;
  }
  const view = createContentView({ request, user: 'browser', context, baseUrl: '/content', store: flash });
  const form = new ObjectForm({ view, app: content, loadFromType: 'article', novalidate: true });
  await form.setup(id === 'new' ? 'create' : 'edit');
  const result = await form.process({ redirectSuccess: id === 'new' ? 'obj_url' : undefined });
  await reply(res, form, result, result.response ? [] : view.messages());
}

/** Starts the demo server on 127.0.0.1 with a free port; with `content`, also the ObjectForm pages under /content/. */
export async function startDemoServer(content?: KyselyContent): Promise<DemoServer> {
  const uploads: number[] = [];
  const received: Record<string, unknown>[] = [];
  const server: Server = createServer((req, res) => {
    handle(req, res, uploads, content, received).catch((e: unknown) => {
      res.writeHead(500).end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    uploads,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
