// config.kubesphere.io/v1alpha2: what the console reads to bootstrap. configz and oauth are anonymous (the login page
// reads them before anyone logs in: ../../path-policy.ts); gpu/kinds needs a token but no permission.
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { ServerContext } from '../../context.ts';
import { registerKapisRoute } from '../route.ts';
import { errors } from '../schemas.ts';
import { componentsOf } from './configz.ts';
import { OAuthConfig, publicOAuthOptions } from './oauth.ts';

const BASE = '/config.kubesphere.io/v1alpha2';
const TAG = 'config.kubesphere.io/v1alpha2';

const GpuKinds = Type.Array(
  Type.Object({
    resourceName: Type.Optional(Type.String()),
    resourceType: Type.Optional(Type.String()),
    default: Type.Optional(Type.Boolean()),
  }),
  { description: 'The GPU kinds of gpu.kinds; [] when none' },
);

export function registerConfigRoutes(app: FastifyInstance, ctx: ServerContext): void {
  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/configs/oauth`,
    schema: {
      tags: [TAG],
      summary: 'The OAuth configuration, without secrets (readable without a token)',
      operationId: 'GetOAuthConfiguration',
      security: [],
      response: { 200: OAuthConfig },
    },
    handler: async () => publicOAuthOptions(ctx.oauth.options().oauthOptions),
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/configs/configz`,
    schema: {
      tags: [TAG],
      summary: 'Which KubeSphere components are configured (readable without a token)',
      operationId: 'GetKubeSphereConfiguration',
      security: [],
      response: {
        200: Type.Object(
          {},
          {
            additionalProperties: Type.Boolean(),
            description: 'component name (devops, monitoring, network.ippool ...) -> configured',
          },
        ),
      },
    },
    handler: async () => componentsOf(ctx.config.current()),
  });
  registerKapisRoute(app, {
    method: 'GET',
    path: `${BASE}/configs/gpu/kinds`,
    schema: {
      tags: [TAG],
      summary: 'The GPU kinds the cluster offers',
      operationId: 'GetGPUKinds',
      response: { 200: GpuKinds, ...errors() },
    },
    handler: async () => ctx.config.current().gpu?.kinds ?? [],
  });
}
