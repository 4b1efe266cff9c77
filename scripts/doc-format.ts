// JSON formatting shared by the scripts that print the examples of docs/*.md.

/** JSON as a person would write it: anything that fits on a line stays on one line. */
export function flat(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(flat).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${flat(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value) ?? 'undefined';
}
export function pretty(value: unknown, indent = ''): string {
  const line = flat(value);
  if (line.length + indent.length <= 90 || value === null || typeof value !== 'object') return line;
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((v) => inner + pretty(v, inner)).join(',\n')}\n${indent}]`;
  return `{\n${Object.entries(value)
    .map(([k, v]) => `${inner}${JSON.stringify(k)}: ${pretty(v, inner)}`)
    .join(',\n')}\n${indent}}`;
}
