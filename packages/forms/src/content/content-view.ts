/* A view for pages that show content objects: their urls for the redirect placeholders, the
   request and user, and flashed messages kept in a store the host owns (usually its session). */
import type { FormRequest } from '../request/form-request.js';
import type { ContentObject, ContentView } from './model.js';

/** Where the view keeps flashed messages between requests. */
export interface MessageStore {
  messages: string[];
}

export interface ContentViewInit {
  request: FormRequest;
  user?: unknown;
  /** The object the page shows. */
  context?: ContentObject;
  /** Url prefix of objects: an object's url is `<baseUrl>/<id>`. Default `''`. */
  baseUrl?: string;
  /** The session's message store; default a fresh one. */
  store?: MessageStore;
}

const objectOf = (ctx: unknown): ContentObject | undefined =>
  typeof ctx === 'object' && ctx !== null && typeof (ctx as ContentObject).id === 'string'
    ? (ctx as ContentObject)
    : undefined;

/** The object itself if its type is a page, else its nearest page ancestor, else its root. */
function pageOf(obj: ContentObject): ContentObject {
  let top = obj;
  for (let o: ContentObject | undefined = obj; o; o = o.parent) {
    if (o.configuration?.page) return o;
    top = o;
  }
  return top;
}

/**
 * Url helpers for content objects: `obj_url` (`<base>/<id>`), `obj_folder_url` (with a trailing
 * `/`), `parent_url`, `page_url` (the object's page) and `page_url_anchor` (the page url plus
 * `#roost-element-<id>` when the object is inside the page). A context that is not an object
 * (e.g. validated data) resolves to the base url.
 *
 * @example
 * contentUrls('/admin/content').obj_url(obj); // '/admin/content/Xk3...'
 */
export function contentUrls(baseUrl = ''): Record<string, (context: unknown) => string> {
  const url = (obj: ContentObject | undefined): string =>
    obj ? `${baseUrl}/${encodeURIComponent(obj.id)}` : `${baseUrl}/`;
  return {
    obj_url: (ctx) => url(objectOf(ctx)),
    obj_folder_url: (ctx) => `${url(objectOf(ctx)).replace(/\/$/, '')}/`,
    parent_url: (ctx) => url(objectOf(ctx)?.parent ?? objectOf(ctx)),
    page_url: (ctx) => {
      const obj = objectOf(ctx);
      return url(obj && pageOf(obj));
    },
    page_url_anchor: (ctx) => {
      const obj = objectOf(ctx);
      if (!obj) return url(undefined);
      const page = pageOf(obj);
      return page === obj ? url(page) : `${url(page)}#roost-element-${encodeURIComponent(obj.id)}`;
    },
  };
}

/**
 * A `ContentView` for one request.
 *
 * @example
 * const view = createContentView({ request, user, context: obj, baseUrl: '/admin/content', store: session.flash });
 * const form = new ObjectForm({ view, loadFromType: obj.type, subset: 'edit' });
 */
export function createContentView(init: ContentViewInit): ContentView {
  const store = init.store ?? { messages: [] };
  return {
    request: init.request,
    user: init.user,
    context: init.context,
    urls: contentUrls(init.baseUrl),
    flash: (messages) => void store.messages.push(...messages),
    messages: () => store.messages.splice(0),
  };
}
