// What the filter chain attaches to each request, read by every later filter and handler.
import type { RequestInfo } from './filters/requestinfo.ts';

/** The authenticated caller, as Kubernetes' user.Info. */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

declare module 'fastify' {
  interface FastifyRequest {
    requestInfo: RequestInfo;
    /** Set by the authentication filter; undefined only on the anonymous allow-list. */
    user?: UserInfo;
  }
}
