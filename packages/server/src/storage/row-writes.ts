interface Write<Q, R> {
  query: Q;
  kind: string;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/** One statement run for the writes of one kind: the last of them, whose answer is theirs. */
interface Run<Q, R> {
  last: Write<Q, R>;
  writes: Array<Write<Q, R>>;
}

/**
 * The statements for the writes of one row that waited together: one per kind, the kind's
 * last write, in the order of those last writes. Writes of one row and kind replace each other
 * and meet the same outcome (the row is there for each, or for none), so the row ends with the
 * value of the last write that succeeds, as if each had run in turn; nobody could have read
 * those in between, as they never were.
 */
function runsOf<Q, R>(writes: ReadonlyArray<Write<Q, R>>): Array<Run<Q, R>> {
  const runs = new Map<string, Run<Q, R>>();
  for (const w of writes) {
    const run = runs.get(w.kind);
    if (run) {
      // Moved to the end: runs go in the order of their last writes.
      runs.delete(w.kind);
      run.writes.push(w);
      run.last = w;
      runs.set(w.kind, run);
    } else runs.set(w.kind, { last: w, writes: [w] });
  }
  return [...runs.values()];
}

/**
 * Writes of one row, combined while one is under way (setItem's UPDATE by key, on PostgreSQL).
 * Writes of one row wait for each other anyway: each holds the row's lock until its commit,
 * and each commit waits for PostgreSQL to flush its WAL, so fifty callers replacing one item
 * got one commit at a time, no more than the bare route running the same UPDATE
 * (bench/RESULTS.md, "Replaces of one row combined on PostgreSQL"). Here a write whose row no
 * other write holds runs at once, alone, as before; those that come meanwhile wait, and then
 * run as one statement per kind (`runsOf`). Each statement stays a commit of its own: nothing
 * holds two rows' locks, so nothing new can deadlock. A write's promise resolves when the
 * statement that stands for it has committed, with that statement's answer or error.
 */
export class RowWrites<Q, R> {
  /** The rows with a write under way, each with the writes waiting for it. */
  readonly #waiting = new Map<string, Array<Write<Q, R>>>();

  constructor(private readonly run: (query: Q) => Promise<R>) {}

  /**
   * Run `query`, a write of the one row that `row` names (its table and key, say). Writes of a
   * row with the same `kind` must meet the same outcome whatever value they write.
   */
  write(query: Q, row: string, kind: string): Promise<R> {
    return new Promise((resolve, reject) => {
      const write = { query, kind, resolve, reject };
      const waiting = this.#waiting.get(row);
      if (waiting) waiting.push(write);
      else {
        this.#waiting.set(row, []);
        void this.#runAll(row, [write]);
      }
    });
  }

  async #runAll(row: string, writes: ReadonlyArray<Write<Q, R>>): Promise<void> {
    for (const { last, writes: of } of runsOf(writes)) {
      // A runner that throws instead of rejecting must not leave the row held for good.
      await new Promise<R>((resolve) => resolve(this.run(last.query))).then(
        (result) => {
          for (const w of of) w.resolve(result);
        },
        (error: unknown) => {
          for (const w of of) w.reject(error);
        },
      );
    }
    const next = this.#waiting.get(row);
    if (!next?.length) this.#waiting.delete(row);
    else {
      this.#waiting.set(row, []);
      void this.#runAll(row, next);
    }
  }
}
