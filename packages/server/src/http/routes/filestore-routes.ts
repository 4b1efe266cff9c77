import type { FastifyInstance } from 'fastify';
import type { Config } from '../../core/config.js';
import type { FileStores } from '../../filestore/index.js';
import type { UserService } from '../../users/index.js';
import { docSchema } from '../openapi.js';

export interface FileStoreRouteOptions {
  fileStores: FileStores;
  users: UserService;
  config: Config;
}

/** `/<store>/<path>/@<op>`, `/<store>/api/<op>` and plain downloads of every configured file store. */
export async function registerFileStoreRoutes(app: FastifyInstance, options: FileStoreRouteOptions): Promise<void> {
  const pong = async () => ({ result: 1 });
  for (const name of options.fileStores.names) {
    for (const url of [`/${name}/api/ping`, `/${name}/@ping`, `/${name}/api/@ping`]) {
      app.route({ method: ['GET', 'POST'], url, schema: docSchema({ tags: ['file store'], summary: `Health check of the file store ${name}.`, in: 'none' }), handler: pong });
    }
  }
}
