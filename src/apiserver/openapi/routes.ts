// Serves the two swagger documents and a Swagger UI page, all without a token (under the anonymous /swagger-ui/
// prefix of the authentication allow-list):
//   /swagger-ui/                              the UI (swagger-ui-dist), both documents selectable; "Authorize" offers
//                                             the OAuth2 password flow against /oauth/token or a pasted bearer token
//   /swagger-ui/ks-openapi-spec/swagger.json  kapiserver's own APIs
//   /swagger-ui/openapi-spec/swagger.json     the custom-resource objects
// The documents are the checked-in files under api/ (a test keeps them equal to what the code generates); when
// they are missing (e.g. an image without api/) they are generated on first request.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../k8s/status.ts';
import { CRD_SPEC_FILE, KS_SPEC_FILE } from './spec-files.ts';

export const SWAGGER_UI = '/swagger-ui';
export const KS_SPEC_PATH = `${SWAGGER_UI}/ks-openapi-spec/swagger.json`;
export const CRD_SPEC_PATH = `${SWAGGER_UI}/openapi-spec/swagger.json`;

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const INDEX_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <title>kapiserver API</title>
  <link rel="stylesheet" type="text/css" href="./swagger-ui.css">
  <link rel="stylesheet" type="text/css" href="./index.css">
  <link rel="icon" type="image/png" href="./favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="./swagger-ui-bundle.js" charset="UTF-8"></script>
  <script src="./swagger-ui-standalone-preset.js" charset="UTF-8"></script>
  <script src="./swagger-initializer.js" charset="UTF-8"></script>
</body>
</html>
`;

const INITIALIZER_JS = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    urls: [
      { url: '${KS_SPEC_PATH}', name: 'kapiserver (KubeSphere APIs)' },
      { url: '${CRD_SPEC_PATH}', name: 'Custom resources (CRDs)' },
    ],
    'urls.primaryName': 'kapiserver (KubeSphere APIs)',
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
  });
  // Pre-fill the password flow's client id (the secret is the deployer's and is never served).
  window.ui.initOAuth({ clientId: 'kubesphere', useBasicAuthenticationWithAccessCodeGrant: false });
};
`;

function assetDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('swagger-ui-dist/package.json'));
}

export function registerOpenApiRoutes(app: FastifyInstance): void {
  const cache = new Map<string, Buffer>();
  let documents: Promise<Map<string, string>> | undefined;

  const document = async (file: string): Promise<string> => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      // The generator (and @fastify/swagger) is loaded only here: a server with api/ never needs it.
      documents ??= import('./generate.ts')
        .then(({ generatedDocuments }) => generatedDocuments())
        .then((docs) => new Map(docs.map((d) => [d.file, d.text])));
      return (await documents).get(file) ?? '{}';
    }
  };

  app.get(KS_SPEC_PATH, { schema: { hide: true } }, async (_request, reply) => {
    reply.type('application/json; charset=utf-8');
    return document(KS_SPEC_FILE);
  });
  app.get(CRD_SPEC_PATH, { schema: { hide: true } }, async (_request, reply) => {
    reply.type('application/json; charset=utf-8');
    return document(CRD_SPEC_FILE);
  });
  app.get(SWAGGER_UI, { schema: { hide: true } }, async (_request, reply) =>
    reply.redirect(`${SWAGGER_UI}/`, 302),
  );
  app.get(`${SWAGGER_UI}/`, { schema: { hide: true } }, async (_request, reply) => {
    reply.type('text/html; charset=utf-8');
    return INDEX_HTML;
  });
  app.get(`${SWAGGER_UI}/index.html`, { schema: { hide: true } }, async (_request, reply) => {
    reply.type('text/html; charset=utf-8');
    return INDEX_HTML;
  });
  app.get(`${SWAGGER_UI}/swagger-initializer.js`, { schema: { hide: true } }, async (_request, reply) => {
    reply.type('application/javascript; charset=utf-8');
    return INITIALIZER_JS;
  });
  app.get(`${SWAGGER_UI}/:asset`, { schema: { hide: true } }, async (request, reply) => {
    const { asset } = request.params as { asset: string };
    const type = ASSETS[asset];
    if (!type) throw notFound('', 'swagger-ui assets', asset);
    let body = cache.get(asset);
    if (!body) {
      body = readFileSync(join(assetDir(), asset));
      cache.set(asset, body);
    }
    reply.type(type).header('cache-control', 'public, max-age=3600');
    return body;
  });
}
