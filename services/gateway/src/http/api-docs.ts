import express from 'express';
// Only `absolute-path`: the package's index.js loads the whole browser bundle into Node.
import swaggerUiPath from 'swagger-ui-dist/absolute-path';
import { buildAsyncApi } from '@bo/contracts';

/** Where the page's assets are served from: Swagger UI's own files, out of node_modules. */
const ASSETS = '/docs/assets';

/** Our page: Swagger UI's bundle and style, pointed at this gateway's /openapi.json. Nothing comes from a CDN. */
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Back-office API reference</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="${ASSETS}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${ASSETS}/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${ASSETS}/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  // The document is large (every operation's schemas); validating it against swagger.io would leave the machine.
  validatorUrl: null,
});
`;

/**
 * GET /asyncapi.json (the events, generated from the contracts like /openapi.json) and the API
 * reference page at GET /docs, rendered in the browser by Swagger UI from /openapi.json; it works
 * offline, since every file it loads is served here.
 */
export function apiDocsRouter(): express.Router {
  const asyncapi = buildAsyncApi();
  const router = express.Router();
  router.get('/asyncapi.json', (_req, res) => {
    res.json(asyncapi);
  });
  router.get('/docs', (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT);
  });
  router.use(ASSETS, express.static(swaggerUiPath(), { index: false, maxAge: '1h' }));
  return router;
}
