import { attrs } from './html.js';
import type { WidgetRequirements } from '../fields/widget.js';

/**
 * The resources every form needs.
 *
 * @example
 * headTags([formRequirements], [], defaultStaticUrl);
 */
export const formRequirements: Required<WidgetRequirements> = { css: ['roost-forms.css'], js: ['roost-forms.js'] };

/**
 * Default url of a static asset: `/forms-static/<name>`. Absolute urls are kept.
 *
 * @example
 * defaultStaticUrl('roost-forms.js'); // '/forms-static/roost-forms.js'
 */
export function defaultStaticUrl(name: string): string {
  return /^(https?:)?\/\//.test(name) || name.startsWith('/') ? name : `/forms-static/${name}`;
}

const shortName = (name: string): string => name.split('/').pop()?.split('?')[0] ?? name;

/**
 * Head tags for a set of requirements: duplicates removed, names in `ignore` (by short name)
 * dropped, all css `<link>`s first, then the `<script>`s, joined by CRLF.
 *
 * @example
 * headTags([formRequirements], [], defaultStaticUrl);
 */
export function headTags(
  requirements: readonly WidgetRequirements[],
  ignore: readonly string[],
  staticUrl: (name: string) => string,
): string {
  const skip = new Set(ignore.map(shortName));
  const pick = (kind: 'css' | 'js'): string[] =>
    [...new Set(requirements.flatMap((r) => r[kind] ?? []))].filter((n) => !skip.has(shortName(n)));
  const css = pick('css').map(
    (n) => `<link${attrs({ href: staticUrl(n), rel: 'stylesheet', type: 'text/css', media: 'all' })}>`,
  );
  const js = pick('js').map((n) => `<script${attrs({ src: staticUrl(n), type: 'text/javascript' })}></script>`);
  return [...css, ...js].join('\r\n');
}
