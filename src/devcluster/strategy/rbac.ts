// RBAC bindings need a role reference.
import { isObj } from '../meta.ts';
import { strategy } from './strategy.ts';

export const bindingStrategy = strategy({
  validate(o) {
    const ref = o.roleRef;
    if (isObj(ref) && typeof ref.name === 'string' && typeof ref.kind === 'string') return [];
    return [{ reason: 'FieldValueRequired', message: 'Required value', field: 'roleRef' }];
  },
});
