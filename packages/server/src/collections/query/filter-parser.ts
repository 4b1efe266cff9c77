import type { FilterAst, Literal, Operand, Operator } from './filter-ast.js';
import { positionIn, QUERY_LIMITS, queryError } from './query-errors.js';

/**
 * The syntax of filters (docs/collection-queries.md): text to a tree, or an `invalid_filter`
 * saying what is wrong at which character. Only syntax: checkFilter (filter-check.ts) knows the
 * fields. Recursion happens only at a parenthesis, which the depth limit bounds.
 */

type Token =
  | { kind: 'op'; op: Operator; at: number }
  | { kind: 'and' | 'or' | 'open' | 'close' | 'end'; at: number }
  | { kind: 'operand'; operand: Operand; at: number };

// Longest first, so that `?!=` is not read as `?` and `!=`.
const OPERATORS: readonly Operator[] = [
  '?!=',
  '?!~',
  '?>=',
  '?<=',
  '?=',
  '?>',
  '?<',
  '?~',
  '!=',
  '!~',
  '>=',
  '<=',
  '=',
  '>',
  '<',
  '~',
];
const NAME = /[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const NAME_CHAR = /[A-Za-z0-9_.]/;
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '\\': '\\',
  '/': '/',
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
};
/** A surrogate without its other half: PostgreSQL cannot hold it, and no text of a record does. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Parse a filter's text into its syntax tree.
 * @example parseFilter('status = "open" && priority >= 2')
 */
export function parseFilter(text: string): FilterAst {
  if (text.length > QUERY_LIMITS.filterLength)
    throw queryError('filter_too_long', 'filter', `${text.length} characters, at most ${QUERY_LIMITS.filterLength}`);
  let pos = 0;
  let depth = 0;
  let comparisons = 0;
  let token: Token;

  const fail = (at: number, what: string): never => {
    throw queryError('invalid_filter', 'filter', `${what} at character ${positionIn(text, at)}`);
  };
  const shown = (at: number) =>
    at >= text.length ? 'the end' : JSON.stringify(String.fromCodePoint(text.codePointAt(at)!));

  function next(): Token {
    while (pos < text.length && /\s/.test(text[pos]!)) pos++;
    const at = pos;
    if (pos >= text.length) return { kind: 'end', at };
    const c = text[pos]!;
    if (c === '(' || c === ')') {
      pos++;
      return { kind: c === '(' ? 'open' : 'close', at };
    }
    if (text.startsWith('&&', pos) || text.startsWith('||', pos)) {
      pos += 2;
      return { kind: c === '&' ? 'and' : 'or', at };
    }
    const op = OPERATORS.find((o) => text.startsWith(o, pos));
    if (op) {
      pos += op.length;
      if (text[pos] === '=' && (op === '=' || op === '!=')) fail(at, `unknown operator ${JSON.stringify(`${op}=`)}`);
      return { kind: 'op', op, at };
    }
    if (c === '"' || c === "'") return { kind: 'operand', operand: { type: 'literal', value: string(c), at }, at };
    if (c === '-' || (c >= '0' && c <= '9')) return { kind: 'operand', operand: number(), at };
    if (c === '@') {
      pos++;
      const path = name();
      if (path === undefined) fail(at, 'a variable name (such as @request.auth.id) expected after "@"');
      return { kind: 'operand', operand: { type: 'variable', path: path!.split('.'), at }, at };
    }
    const path = name();
    if (path === undefined) return fail(at, `unexpected ${shown(at)}`);
    const literal = KEYWORDS.get(path);
    const operand: Operand =
      literal === undefined ? { type: 'field', path: path.split('.'), at } : { type: 'literal', value: literal, at };
    return { kind: 'operand', operand, at };
  }

  function name(): string | undefined {
    NAME.lastIndex = pos;
    const match = NAME.exec(text);
    if (!match) return undefined;
    pos += match[0].length;
    if (pos < text.length && NAME_CHAR.test(text[pos]!)) fail(pos, `unexpected ${shown(pos)} in a name`);
    return match[0];
  }

  function number(): Operand {
    const at = pos;
    NUMBER.lastIndex = pos;
    const match = NUMBER.exec(text);
    if (!match) return fail(at, `a number expected at ${shown(at)}`);
    pos += match[0].length;
    if (pos < text.length && NAME_CHAR.test(text[pos]!)) fail(pos, `unexpected ${shown(pos)} in a number`);
    const value = Number(match[0]);
    if (!Number.isFinite(value)) fail(at, 'a number too large');
    // -0 and 0 are one value in JSON and in both databases.
    return { type: 'literal', value: value === 0 ? 0 : value, at };
  }

  function string(quote: string): string {
    const at = pos;
    pos++;
    let value = '';
    let start = pos;
    for (;;) {
      if (pos >= text.length) fail(at, 'a string not closed');
      const c = text[pos]!;
      if (c === quote) break;
      if (c !== '\\') {
        pos++;
        continue;
      }
      value += text.slice(start, pos);
      const e = text[pos + 1];
      if (e !== undefined && Object.hasOwn(SIMPLE_ESCAPES, e)) {
        value += SIMPLE_ESCAPES[e];
        pos += 2;
      } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) {
        value += String.fromCharCode(Number.parseInt(text.slice(pos + 2, pos + 6), 16));
        pos += 6;
      } else fail(pos, `an unknown escape ${JSON.stringify(`\\${e ?? ''}`)}`);
      start = pos;
    }
    value += text.slice(start, pos);
    pos++;
    // Neither database stores these in text: a value holding one could match nothing.
    if (value.includes('\u0000')) fail(at, 'a string with the NUL character (\\u0000)');
    if (LONE_SURROGATE.test(value)) fail(at, 'a string with half of a surrogate pair');
    return value;
  }

  // A call, not `token.kind`: TypeScript would keep the kind it narrowed before advance() moved on.
  const is = (kind: Token['kind']) => token.kind === kind;

  function advance(): Token {
    const current = token;
    token = next();
    return current;
  }

  function expression(): FilterAst {
    let left = conjunction();
    while (token.kind === 'or') {
      const { at } = advance();
      left = { type: 'or', left, right: conjunction(), at };
    }
    return left;
  }

  function conjunction(): FilterAst {
    let left = primary();
    while (token.kind === 'and') {
      const { at } = advance();
      left = { type: 'and', left, right: primary(), at };
    }
    return left;
  }

  function primary(): FilterAst {
    if (token.kind === 'open') {
      const open = advance();
      if (++depth > QUERY_LIMITS.filterDepth)
        throw queryError(
          'filter_too_deep',
          'filter',
          `more than ${QUERY_LIMITS.filterDepth} levels of parentheses at character ${positionIn(text, open.at)}`,
        );
      const inner = expression();
      if (!is('close')) fail(token.at, `")" expected to close the "(" at character ${positionIn(text, open.at)}`);
      advance();
      depth--;
      return inner;
    }
    const left = operand('a field, a value or "("');
    if (token.kind !== 'op') return fail(token.at, `an operator (=, !=, >, ~, ?=, ...) expected at ${shown(token.at)}`);
    const { op } = advance() as Extract<Token, { kind: 'op' }>;
    const right = operand('a field or a value');
    if (++comparisons > QUERY_LIMITS.filterComparisons)
      throw queryError(
        'filter_too_complex',
        'filter',
        `more than ${QUERY_LIMITS.filterComparisons} comparisons at character ${positionIn(text, left.at)}`,
      );
    return { type: 'compare', op, left, right, at: left.at };
  }

  function operand(expected: string): Operand {
    if (token.kind !== 'operand') return fail(token.at, `${expected} expected at ${shown(token.at)}`);
    return (advance() as Extract<Token, { kind: 'operand' }>).operand;
  }

  token = next();
  const ast = expression();
  if (token.kind !== 'end') fail(token.at, `"&&", "||" or the end expected at ${shown(token.at)}`);
  return ast;
}

const KEYWORDS = new Map<string, Literal>([
  ['true', true],
  ['false', false],
  ['null', null],
]);
