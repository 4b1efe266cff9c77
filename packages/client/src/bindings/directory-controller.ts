import type { FileStore } from '../filestore.js';
import type { Entry, ListQuery } from '../filestore-types.js';
import type { Realtime } from '../realtime.js';
import { refreshOnChanges } from './live-refresh.js';
import { PageController, type PageState } from './page-controller.js';

export type DirectoryState = PageState<Entry>;

/** A file store directory's entries a page at a time: the file store's counterpart of list-controller.ts. */
export class DirectoryController extends PageController<Entry> {
  /** `path` is the directory ('' for the root); `query.size` is the page size (default 20). */
  constructor(
    readonly files: FileStore,
    readonly path: string,
    readonly query: Omit<ListQuery, 'start'> = {},
  ) {
    super(query.size ?? 20, (start, size, signal) => files.list(path, { ...query, size, start }, { signal }));
  }

  /** Shows the page again when the directory's entries change on `live`; returns the function that stops it. */
  watch(live: Realtime): () => void {
    const dir = this.path.replace(/^\/+|\/+$/g, '');
    return refreshOnChanges(live, `files/${this.files.name}${dir ? `/${dir}` : ''}`, this.refresh);
  }
}
