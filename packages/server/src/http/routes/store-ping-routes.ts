import type { FastifyInstance } from 'fastify';
import type { Config } from '../../core/config.js';
import { docSchema } from '../openapi.js';

/**
 * `ping` of every configured data store and file store, at the paths the connectors call.
 * The stores' other operations come with their own services.
 */
export async function registerStorePingRoutes(app: FastifyInstance, options: { config: Config }): Promise<void> {
  const pong = async () => ({ result: 1 });
  const method = ['GET', 'POST'] as const;
  for (const name of Object.keys(options.config.dataStores)) {
    app.route({ method: [...method], url: `/${name}/api/ping`, schema: docSchema({ tags: ['data store'], summary: `Health check of the data store ${name}.`, in: 'none' }), handler: pong });
  }
  for (const name of Object.keys(options.config.fileStores)) {
    for (const url of [`/${name}/api/ping`, `/${name}/@ping`, `/${name}/api/@ping`]) {
      app.route({ method: [...method], url, schema: docSchema({ tags: ['file store'], summary: `Health check of the file store ${name}.`, in: 'none' }), handler: pong });
    }
  }
}
