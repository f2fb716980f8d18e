// Object name rules: RBAC objects accept any path-segment-safe name, namespaces and services DNS labels, the rest
// DNS subdomains (as kube-apiserver validates them).
import type { ResourceDef } from './resources.ts';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const PATH_SEGMENT = /^[^/%]+$/;

/** Why `name` is not a valid name for an object of `d`, or undefined. */
export function validateName(d: ResourceDef, name: string): string | undefined {
  if (d.group === 'rbac.authorization.k8s.io') {
    return PATH_SEGMENT.test(name) && name !== '.' && name !== '..'
      ? undefined
      : 'may not contain "/" or "%"';
  }
  const label = d.resource === 'namespaces' || d.resource === 'services';
  if (label) {
    return name.length <= 63 && DNS_LABEL.test(name)
      ? undefined
      : `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`;
  }
  return name.length <= 253 && DNS_SUBDOMAIN.test(name)
    ? undefined
    : `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
}
