import { type Router as ExpressRouter, Router } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { AppDeps } from '../deps.ts';
import { methodNotAllowed } from '../http.ts';
import { buildOpenApi } from '../openapi.ts';

export function docsRoutes({ config }: AppDeps): ExpressRouter {
  const router = Router();
  const doc = buildOpenApi({ auth: config.apiKeys.length > 0, bodyLimitBytes: config.bodyLimitBytes });
  const body = JSON.stringify(doc);
  router
    .route('/openapi.json')
    .get((_req, res) => {
      res.type('application/json').send(body);
    })
    .all(methodNotAllowed('GET'));
  router.use('/docs', swaggerUi.serveFiles(doc), swaggerUi.setup(doc, { customSiteTitle: 'Hourglass API' }));
  return router;
}
