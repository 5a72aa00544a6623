// The API role's server: builds the app from its parts and listens; closing stops new connections and
// lets requests in flight finish.
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { ApiDeps } from './deps.ts';

export interface ApiServer {
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

export async function startApi(deps: ApiDeps): Promise<ApiServer> {
  const app = await buildApp(deps);
  let url: string;
  try {
    url = await app.listen({ port: deps.config.PORT, host: deps.config.HOST });
  } catch (err) {
    await app.close();
    throw err;
  }
  return { app, url, close: () => app.close() };
}
