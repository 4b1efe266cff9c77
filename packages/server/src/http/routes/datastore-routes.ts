import type { FastifyInstance } from 'fastify';
import type { Config } from '../../core/config.js';
import type { DataStores } from '../../datastore/index.js';
import type { UserService } from '../../users/index.js';
import { docSchema } from '../openapi.js';

export interface DataStoreRouteOptions {
  dataStores: DataStores;
  users: UserService;
  config: Config;
}

/** `/<store>/api/<op>` of every configured data store. */
export async function registerDataStoreRoutes(app: FastifyInstance, options: DataStoreRouteOptions): Promise<void> {
  const pong = async () => ({ result: 1 });
  for (const name of options.dataStores.names) {
    app.route({ method: ['GET', 'POST'], url: `/${name}/api/ping`, schema: docSchema({ tags: ['data store'], summary: `Health check of the data store ${name}.`, in: 'none' }), handler: pong });
  }
}
