import { parse, Tester, type Compare, type Filter } from 'scim2-parse-filter';
import { invalidFilter } from './scim-errors.js';

/**
 * The `filter` parameter (RFC 7644 §3.4.2.2), parsed by scim2-parse-filter (docs/decisions.md),
 * checked here before it is run: its length, its size and the attributes it names, so that a
 * hostile or mistaken filter is a 400 `invalidFilter`, never a slow or empty answer.
 */

/** Longer filters are refused before they are parsed; an identity provider's are a few dozen characters. */
const FILTER_MAX_LENGTH = 2000;
/** Comparisons and logical operators together. */
const FILTER_MAX_NODES = 100;

/**
 * The library's tokenizer backtracks exponentially on a quoted value full of line breaks that is
 * never closed (`"` and thirty `\n`: seconds), and no SCIM string holds a raw control character
 * (they are JSON strings), so a filter with one is refused before the library sees it.
 */
const hasControl = (text: string) => [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

type CompValue = Compare['compValue'];

/** What a filter may name of a resource type: its attributes (lower case, dotted), and which compare case-exactly. */
export interface FilterAttributes {
  /** The core schema's URN, which may prefix an attribute (`urn:…:User:userName`). */
  schema: string;
  names: ReadonlySet<string>;
  caseExact: ReadonlySet<string>;
}

export interface ParsedFilter {
  ast: Filter;
  /** The one `attribute eq "value"` an index answers, when the whole filter is that. */
  equality: { attribute: string; value: string } | null;
  test(resource: object): boolean;
}

/** A filter's text into its checked tree; throws `invalidFilter` (400) with the reason. */
export function parseFilter(text: string, attributes: FilterAttributes): ParsedFilter {
  if (text.length > FILTER_MAX_LENGTH)
    throw invalidFilter(`The filter is longer than ${FILTER_MAX_LENGTH} characters.`);
  if (hasControl(text)) throw invalidFilter('The filter holds a control character.');
  let ast: Filter;
  try {
    ast = parse(text);
  } catch (err) {
    throw invalidFilter(`The filter is not valid: ${err instanceof Error ? err.message.slice(0, 200) : 'unreadable'}.`);
  }
  let nodes = 0;
  const check = (node: Filter, prefix: string): void => {
    if (++nodes > FILTER_MAX_NODES) throw invalidFilter(`The filter has more than ${FILTER_MAX_NODES} terms.`);
    switch (node.op) {
      case 'and':
      case 'or':
        for (const child of node.filters) check(child, prefix);
        return;
      case 'not':
        check(node.filter, prefix);
        return;
      case '[]': {
        const path = attributeOf(node.attrPath, attributes, prefix);
        check(node.valFilter, `${path}.`);
        return;
      }
      default:
        attributeOf(node.attrPath, attributes, prefix);
    }
  };
  check(ast, '');
  const tester = new ScimTester(attributes);
  return {
    ast,
    equality:
      ast.op === 'eq' && typeof ast.compValue === 'string'
        ? { attribute: attributeOf(ast.attrPath, attributes, ''), value: ast.compValue }
        : null,
    test: (resource) => tester.test(resource, ast),
  };
}

/** The attribute's name in lower case without its schema's URN; throws when the resource has no such attribute. */
function attributeOf(path: string, attributes: FilterAttributes, prefix: string): string {
  const schemaPrefix = `${attributes.schema.toLowerCase()}:`;
  let name = path.toLowerCase();
  if (name.startsWith(schemaPrefix)) name = name.slice(schemaPrefix.length);
  const full = prefix + name;
  if (!attributes.names.has(full)) throw invalidFilter(`The filter names "${path}", which cannot be filtered on.`);
  return full;
}

/**
 * The library's tester compares case-exactly; SCIM compares most strings without case
 * (RFC 7643 §2.2 `caseExact`), and `pr` needs a value that is not empty (RFC 7644 §3.4.2.2).
 */
class ScimTester extends Tester {
  private caseless = false;
  private prefix = '';

  constructor(private readonly attributes: FilterAttributes) {
    super();
  }

  override test(resource: unknown, f: Filter): boolean {
    if (f.op === '[]') {
      const outer = this.prefix;
      this.prefix = `${outer}${f.attrPath.toLowerCase().split(':').pop()}.`;
      try {
        return super.test(resource, f);
      } finally {
        this.prefix = outer;
      }
    }
    if (!('attrPath' in f)) return super.test(resource, f);
    let name = this.prefix + (f.attrPath.toLowerCase().split(':').pop() ?? '');
    // A multi-valued complex attribute compared as a whole is its `value` (RFC 7644 §3.4.2.2: `emails co "@x"`).
    if (this.attributes.names.has(`${name}.value`) && f.op !== 'pr') {
      name = `${name}.value`;
      f = { ...f, attrPath: `${f.attrPath}.value` };
    }
    const before = this.caseless;
    this.caseless = !this.attributes.caseExact.has(name);
    try {
      return super.test(resource, f);
    } finally {
      this.caseless = before;
    }
  }

  private fold<T>(value: T): T {
    return (this.caseless && typeof value === 'string' ? value.toLowerCase() : value) as T;
  }

  override pr(value: unknown): boolean {
    return value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);
  }
  override eq(value: unknown, compared: CompValue): boolean {
    return super.eq(this.fold(value), this.fold(compared));
  }
  override ne(value: unknown, compared: CompValue): boolean {
    return super.ne(this.fold(value), this.fold(compared));
  }
  override co(value: unknown, compared: CompValue): boolean {
    return super.co(this.fold(value), this.fold(compared));
  }
  override sw(value: unknown, compared: CompValue): boolean {
    return super.sw(this.fold(value), this.fold(compared));
  }
  override ew(value: unknown, compared: CompValue): boolean {
    return super.ew(this.fold(value), this.fold(compared));
  }
}
