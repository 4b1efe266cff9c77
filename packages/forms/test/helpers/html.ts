/* parse5-based helpers: tests check rendered markup through the parsed tree, never by string
   compares. */
import { parseFragment } from 'parse5';
import type { DefaultTreeAdapterMap } from 'parse5';

export type El = DefaultTreeAdapterMap['element'];
type Node = DefaultTreeAdapterMap['node'];

export interface Dom {
  all: El[];
  find(pred: (el: El) => boolean): El | undefined;
  filter(pred: (el: El) => boolean): El[];
  byId(id: string): El | undefined;
  tag(name: string): El[];
}

function walk(node: Node, out: El[]): void {
  if ('tagName' in node) out.push(node);
  if ('childNodes' in node) for (const c of node.childNodes) walk(c, out);
  if ('content' in node && node.content) walk(node.content as Node, out);
}

/** Parses an HTML fragment into a flat element list with finders. */
export function dom(html: string): Dom {
  const all: El[] = [];
  walk(parseFragment(html) as unknown as Node, all);
  return {
    all,
    find: (pred) => all.find(pred),
    filter: (pred) => all.filter(pred),
    byId: (id) => all.find((e) => attr(e, 'id') === id),
    tag: (name) => all.filter((e) => e.tagName === name),
  };
}

/** An attribute value, or undefined. */
export function attr(el: El | undefined, name: string): string | undefined {
  return el?.attrs.find((a) => a.name === name)?.value;
}

export function hasAttr(el: El | undefined, name: string): boolean {
  return Boolean(el?.attrs.some((a) => a.name === name));
}

/** The text content (entities decoded). */
export function text(node: Node | undefined): string {
  if (!node) return '';
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterMap['textNode']).value;
  if ('childNodes' in node) return node.childNodes.map((c) => text(c)).join('');
  return '';
}

export function classes(el: El | undefined): string[] {
  return (attr(el, 'class') ?? '').split(/\s+/).filter(Boolean);
}

/** Elements inside `root` (descendants). */
export function inside(root: El, pred: (el: El) => boolean): El[] {
  const out: El[] = [];
  walk(root, out);
  return out.slice(1).filter(pred);
}

/** The label element for an input id (label[for]). */
export function labelFor(d: Dom, id: string): El | undefined {
  return d.find((e) => e.tagName === 'label' && attr(e, 'for') === id);
}

/** The texts of the message blocks (success `role=status`, warnings and error summary `role=alert`). */
export function alerts(html: string): string[] {
  return dom(html)
    .filter((e) => attr(e, 'role') === 'status' || attr(e, 'role') === 'alert')
    .map((e) => text(e));
}
