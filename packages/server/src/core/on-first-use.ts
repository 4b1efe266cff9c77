import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS dependency that only some deployments use (pg with PostgreSQL, ioredis with Redis,
 * nodemailer with SMTP, sharp with thumbnails), loaded by the first call rather than when Roost
 * starts: every start of Roost (`roost serve`, each test file) otherwise paid for the three first,
 * about 0.23 s of CPU, and for sharp about 0.1 s more (CONTRIBUTING.md, "Test time"). `require`
 * is synchronous, so callers stay as they were; `prepare` runs once, on the module, when it is
 * loaded. Types come from `import type`.
 */
export function onFirstUse<T>(name: string, prepare: (module: T) => void = () => {}): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded === undefined) {
      loaded = require(name) as T;
      prepare(loaded);
    }
    return loaded;
  };
}
