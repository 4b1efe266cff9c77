import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../core/config.js';
import type { DataStores } from '../../datastore/index.js';
import type { UserService } from '../../users/index.js';
import { assertWriteOrigin, callerOf } from '../auth.js';
import { docSchema } from '../openapi.js';
import { dataStoreOperations } from '../protocol/datastore-protocol.js';
import { requestValues } from '../request-values.js';

export interface DataStoreRouteOptions {
  dataStores: DataStores;
  users: UserService;
  config: Config;
}

/**
 * `/<store>/api/<op>` of every configured data store
 * (http/protocol/datastore-protocol.ts). Validation failures answer 422.
 */
export async function registerDataStoreRoutes(app: FastifyInstance, options: DataStoreRouteOptions): Promise<void> {
  const { users, config } = options;
  const routeConfig = { validationStatus: 422 };
  // A read changes nothing the audit log keeps: no audit frame (http/audit-context.ts).
  const readConfig = { ...routeConfig, readOnly: true };
  for (const name of options.dataStores.names) {
    const store = options.dataStores.get(name);
    if (!store) continue;
    for (const operation of dataStoreOperations(store)) {
      const docs = {
        operationId: `${name}_${operation.op}`,
        tags: [operation.admin ? 'data store (administrators)' : 'data store'],
        summary: operation.summary,
        description: 'Also answers GET with the parameters in the query.',
        input: operation.input,
        answer: operation.answer,
        failure: operation.failure,
        serializeBy: operation.serializeBy,
      };
      const handler = async (request: FastifyRequest, reply: FastifyReply) => {
        // Items may be private to their owner: no browser or proxy cache keeps them.
        reply.header('cache-control', 'no-store');
        const caller = await callerOf(request, users);
        if (!operation.read) assertWriteOrigin(request, caller, config.corsOrigins);
        return operation.call(caller.principal, requestValues(request));
      };
      const url = `/${name}/api/${operation.op}`;
      const opConfig = operation.read ? readConfig : routeConfig;
      app.post(url, { schema: docSchema({ ...docs, in: 'body' }), config: opConfig }, handler);
      app.get(url, { schema: docSchema({ ...docs, in: 'querystring', alias: true }), config: opConfig }, handler);
    }
  }
}
