import type { CollectionSchema } from './collection-schema.js';
import type { RuleOperation } from './collection-rules.js';

/**
 * A collection as `roost.config.ts` declares it (docs/configuration.md, "Collections"), typed:
 * the schema's subset (collection-schema.ts) is checked by the compiler as it is written, and
 * the schema keeps its literal type for whatever reads it next. Roost checks it again when it
 * starts, as it checks a JSON configuration.
 * @example
 * const posts = defineCollection({ schema: { type: 'object', properties: { title: { type: 'string' } } } });
 * export default defineConfig({ collections: { posts } });
 */
export interface CollectionDeclaration<S extends CollectionSchema = CollectionSchema> {
  schema: S;
  /** Per operation: `null` administrators only (the default), `""` anyone, or an expression. */
  rules?: Partial<Record<RuleOperation, string | null>>;
  /** Fields a change of the schema renames, old name to new. */
  renames?: Record<string, string>;
}

export function defineCollection<const S extends CollectionSchema>(
  declaration: CollectionDeclaration<S>,
): CollectionDeclaration<S> {
  return declaration;
}
