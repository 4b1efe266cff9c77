import { isRoostError, type RoostError } from '../errors.js';
import { Latest, Observable } from './observable.js';

export interface PageState<T> {
  items: T[];
  /** The page shown, 1-based. */
  page: number;
  /** Pages in all (at least 1). */
  pages: number;
  /** Rows in all, across pages. */
  total: number;
  loading: boolean;
  error: RoostError | null;
}

/** One page of rows as a store answers it (`start` counts from 1). */
type FetchPage<T> = (start: number, size: number, signal: AbortSignal) => Promise<{ items: T[]; total: number }>;

/**
 * Rows a page at a time: what a data store's list (list-controller.ts) and a file store
 * directory (directory-controller.ts) share. Actions never reject; failures land in `error`.
 */
export class PageController<T> {
  readonly state = new Observable<PageState<T>>({ items: [], page: 1, pages: 1, total: 0, loading: true, error: null });
  readonly #latest = new Latest();

  constructor(
    readonly size: number,
    readonly fetchPage: FetchPage<T>,
  ) {}

  /** Show page `page` (clamped to 1 and above). */
  readonly goTo = async (page: number): Promise<void> => {
    const wanted = Math.max(1, Math.floor(page));
    const signal = this.#latest.next();
    this.state.set({ loading: true });
    try {
      const answer = await this.fetchPage((wanted - 1) * this.size + 1, this.size, signal);
      const pages = Math.max(1, Math.ceil(answer.total / this.size));
      this.state.set({ items: answer.items, page: wanted, pages, total: answer.total, loading: false, error: null });
    } catch (error) {
      if (isRoostError(error) && error.code !== 'aborted') this.state.set({ loading: false, error });
    }
  };

  readonly next = (): Promise<void> => this.goTo(Math.min(this.state.get().page + 1, this.state.get().pages));
  readonly previous = (): Promise<void> => this.goTo(this.state.get().page - 1);
  readonly refresh = (): Promise<void> => this.goTo(this.state.get().page);

  dispose(): void {
    this.#latest.abort();
  }
}
