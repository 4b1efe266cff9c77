import type { Principal } from '../core/permissions.js';
import type { FileStoreContext } from './filestore-context.js';
import type { FilePath } from './file-paths.js';
import { parseInput } from '../core/validation.js';
import { hookedMetaInput } from './filestore-inputs.js';

/**
 * The file stores' hook points (issue 40, docs/hooks.md), merged into core/hooks.ts's open maps.
 * A hook runs before the operation stores anything (contents included), with the entry's path
 * (`docs/readme.txt`: no leading slash):
 * `file.create` (a new file or directory, by `newItem` or by a `write` to a new path),
 * `file.update` (new contents or metadata of an existing one), `file.remove`. It may refuse, or
 * change the MIME type and the cache header; the contents never pass through it.
 */
declare module '../core/hooks.js' {
  interface HookPoints {
    'file.create': { store: string; path: string; directory: boolean; input: FileMeta };
    'file.update': { store: string; path: string; input: FileMeta };
    'file.remove': { store: string; path: string; input: { recursive: boolean } };
  }
  interface AfterHookPoints {
    'file.create': { store: string; path: string; directory: boolean };
    'file.remove': { store: string; path: string; directory: boolean };
  }
}

/** What a file's hooks may change. */
export interface FileMeta {
  mime?: string | undefined;
  cache?: string | undefined;
}

/** The before-hooks of a write of `point` at `path`; the metadata they leave (unchanged without hooks). */
export async function fileHooked(
  ctx: FileStoreContext,
  point: 'file.create' | 'file.update',
  caller: Principal,
  path: FilePath,
  meta: FileMeta,
  directory = false,
): Promise<FileMeta> {
  if (!ctx.hooks.has(point)) return meta;
  const input = { mime: meta.mime, cache: meta.cache };
  const hooked =
    point === 'file.create'
      ? await ctx.hooks.before(point, { point, caller, store: ctx.name, path: path.path, directory, input })
      : await ctx.hooks.before(point, { point, caller, store: ctx.name, path: path.path, input });
  return parseInput(hookedMetaInput, { mime: hooked.input.mime, cache: hooked.input.cache });
}

/** The before-hooks of a removal at `path`: they may refuse it. */
export async function removalHooked(ctx: FileStoreContext, caller: Principal, path: FilePath, recursive: boolean) {
  if (!ctx.hooks.has('file.remove')) return;
  const context = { point: 'file.remove' as const, caller, store: ctx.name, path: path.path };
  await ctx.hooks.before('file.remove', { ...context, input: { recursive } });
}

/**
 * What stores the after-hooks' jobs of a file's creation or removal in its transaction
 * (filestore-repo.ts `insert`, `removeTree`), or undefined when the point has none.
 */
export function filesAfter(
  ctx: FileStoreContext,
  caller: Principal,
  point: 'file.create' | 'file.remove',
  path: FilePath,
  directory: boolean,
): ((handle: object) => Promise<void>) | undefined {
  if (!ctx.hooks.hasAfter(point)) return undefined;
  return (handle) => ctx.hooks.after(point, { point, caller, store: ctx.name, path: path.path, directory }, handle);
}
