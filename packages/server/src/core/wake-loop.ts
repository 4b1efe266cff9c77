/**
 * A worker's run that can be asked for at any time: `wake` starts a pass, or, while one runs,
 * asks for one more after it (what was stored meanwhile may have been missed). The mail queue
 * The job queue
 * (core/job-queue.ts) runs its jobs with it. A pass that
 * throws is reported and the next poll tries again.
 */
export function wakeLoop(pass: () => Promise<void>, onError: (err: unknown) => void, closed: () => boolean) {
  let running: Promise<void> | null = null;
  let again = false;
  async function run(): Promise<void> {
    do {
      again = false;
      await pass();
    } while (again && !closed());
  }
  return {
    wake(): Promise<void> {
      if (running) {
        again = true;
        return running;
      }
      running = run()
        .catch(onError)
        .finally(() => {
          running = null;
        });
      return running;
    },
    /** True while a pass runs. */
    get busy(): boolean {
      return running !== null;
    },
    /** Resolves when the pass under way (if any) is over. */
    settled(): Promise<void> {
      return running ?? Promise.resolve();
    },
  };
}
