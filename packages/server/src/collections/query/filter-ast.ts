/**
 * The syntax tree of a filter (docs/collection-queries.md), as parseFilter makes it and
 * printFilter writes it back. Every node keeps `at`, the UTF-16 offset of its first character in
 * the text, for the checker's errors.
 */

/** The comparison operators; a leading `?` means "at least one element of the array ...". */
export type ScalarOperator = '=' | '!=' | '>' | '>=' | '<' | '<=' | '~' | '!~';
export type Operator = ScalarOperator | `?${ScalarOperator}`;

export type Literal = string | number | boolean | null;

export type Operand =
  /** A field path: `title`, `address.city`, `author.name`. */
  | { readonly type: 'field'; readonly path: readonly string[]; readonly at: number }
  | { readonly type: 'literal'; readonly value: Literal; readonly at: number }
  /** `@request.auth.id` is `['request', 'auth', 'id']`, `@now` is `['now']`. */
  | { readonly type: 'variable'; readonly path: readonly string[]; readonly at: number };

interface Comparison {
  readonly type: 'compare';
  readonly op: Operator;
  readonly left: Operand;
  readonly right: Operand;
  readonly at: number;
}

/** `&&` and `||` are binary and left-associative: `a && b && c` is `and(and(a, b), c)`. */
interface Junction {
  readonly type: 'and' | 'or';
  readonly left: FilterAst;
  readonly right: FilterAst;
  readonly at: number;
}

export type FilterAst = Comparison | Junction;

/**
 * The filter as text that parses back to the same tree (positions aside): parentheses only where
 * the tree needs them, strings in double quotes.
 * @example printFilter(parseFilter('a = 1 && (b = "x" || c != null)')) // 'a = 1 && (b = "x" || c != null)'
 */
export function printFilter(ast: FilterAst): string {
  if (ast.type === 'compare') return `${printOperand(ast.left)} ${ast.op} ${printOperand(ast.right)}`;
  // `&&` binds tighter than `||`, and both group to the left: a right child of the same kind, or
  // an `||` under an `&&`, needs parentheses to stay where it is.
  const left = ast.type === 'and' && ast.left.type === 'or' ? `(${printFilter(ast.left)})` : printFilter(ast.left);
  const right =
    ast.right.type === 'or' || (ast.type === 'and' && ast.right.type === 'and')
      ? `(${printFilter(ast.right)})`
      : printFilter(ast.right);
  return `${left} ${ast.type === 'and' ? '&&' : '||'} ${right}`;
}

function printOperand(operand: Operand): string {
  switch (operand.type) {
    case 'field':
      return operand.path.join('.');
    case 'variable':
      return `@${operand.path.join('.')}`;
    case 'literal':
      return typeof operand.value === 'string' ? printString(operand.value) : String(operand.value);
  }
}

function printString(value: string): string {
  let out = '"';
  for (const c of value) {
    const code = c.charCodeAt(0);
    out += ESCAPES[c] ?? (code < 0x20 ? `\\u${code.toString(16).padStart(4, '0')}` : c);
  }
  return `${out}"`;
}

const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
