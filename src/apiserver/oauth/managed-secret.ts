// Creating a Secret that kapiserver generated and keeps (its signing keys), with its namespace when missing. A
// concurrent creator makes the create a 409, which the caller reads as "another replica was first".
import { isConflict, type KubeRest } from '../cluster/index.ts';

export async function createManagedSecret(
  rest: KubeRest,
  namespace: string,
  name: string,
  data: Record<string, string>,
): Promise<void> {
  try {
    await rest.create('/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });
  } catch (err) {
    if (!isConflict(err)) throw err;
  }
  await rest.create(`/api/v1/namespaces/${namespace}/secrets`, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, labels: { 'app.kubernetes.io/managed-by': 'kapiserver' } },
    type: 'Opaque',
    data,
  });
}
