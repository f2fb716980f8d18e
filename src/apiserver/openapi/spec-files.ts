// Where the checked-in swagger documents live: known to the server (which serves them) without loading the
// generator (which builds them from the route schemas).
import { fileURLToPath } from 'node:url';

export const KS_SPEC_FILE = fileURLToPath(
  new URL('../../../api/ks-openapi-spec/swagger.json', import.meta.url),
);
export const CRD_SPEC_FILE = fileURLToPath(
  new URL('../../../api/openapi-spec/swagger.json', import.meta.url),
);
