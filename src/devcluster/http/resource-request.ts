// What the resource handlers share: the request, its resolved resource and the dev cluster's parts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceDef } from '../resources.ts';
import type { Rest } from '../rest.ts';
import type { ServiceAccounts } from '../serviceaccounts.ts';
import type { Watches } from '../watch.ts';
import type { Target } from './request-info.ts';

export interface ResourceDeps {
  rest: Rest;
  watches: Watches;
  /** The administrator's bearer token. */
  token: string;
  serviceAccounts?: ServiceAccounts;
}

export interface ResourceRequest {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  accept: string;
  query: URLSearchParams;
  target: Target;
  d: ResourceDef;
  /** The namespace of a namespaced resource; undefined for cluster-scoped ones. */
  ns: string | undefined;
}
