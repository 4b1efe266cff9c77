import type { RedirectTarget } from '../conf/action-conf.js';
import { ConfigurationError } from '../conf/configuration-error.js';
import type { FormView } from './form.js';

/**
 * The placeholders a redirect url may start with.
 *
 * @example
 * urlPlaceholders.includes('obj_url'); // true
 */
export const urlPlaceholders = ['obj_url', 'obj_folder_url', 'parent_url', 'page_url', 'page_url_anchor'] as const;

/**
 * Resolves a redirect target: a callback is called with `(context, view)`; a url starting with a
 * placeholder (`obj_url`, `obj_folder_url/edit`, ...) is resolved through `view.resolveUrl` or
 * `view.urls[placeholder](context)` and keeps the rest of its path; anything else is used verbatim.
 *
 * @example
 * const view = { urls: { obj_url: (o: unknown) => `/items/${(o as { id: number }).id}` } };
 * resolveRedirect('obj_url/edit', { id: 7 }, view); // '/items/7/edit'
 */
export function resolveRedirect(target: RedirectTarget, context: unknown, view: FormView | undefined): string {
  if (typeof target === 'function') return target(context, view);
  assertResolvable(target, view);
  if (view?.resolveUrl) return view.resolveUrl(target, context);
  const slash = target.indexOf('/');
  const head = slash === -1 ? target : target.slice(0, slash);
  const rest = slash === -1 ? '' : target.slice(slash);
  const resolver = view?.urls?.[head];
  if (!resolver) return target;
  const base = resolver(context);
  return rest ? `${base.replace(/\/$/, '')}${rest}` : base;
}

/**
 * Throws when `target` starts with a url placeholder that `view` cannot resolve: sent as it is,
 * `Location: obj_url` would take the browser to a page that does not exist. `HTMLForm.process`
 * checks every configured target before it runs an action, so the mistake shows on the first
 * request instead of after a successful save.
 *
 * @example
 * assertResolvable('obj_url', undefined); // throws ConfigurationError
 */
export function assertResolvable(target: RedirectTarget | undefined, view: FormView | undefined): void {
  if (typeof target !== 'string' || view?.resolveUrl) return;
  const head = target.split('/', 1)[0] ?? '';
  if (!(urlPlaceholders as readonly string[]).includes(head) || view?.urls?.[head]) return;
  throw new ConfigurationError(
    `The redirect target "${target}" starts with the placeholder ${head}, which needs a view that resolves it ` +
      `(view.resolveUrl, or view.urls.${head})`,
  );
}
