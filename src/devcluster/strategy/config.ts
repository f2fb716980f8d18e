// ConfigMaps and Secrets: string maps with valid keys (base64 values for Secrets and binaryData); a Secret's
// write-only stringData is folded into data.
import type { StatusCause } from '../../k8s/status.ts';
import { isObj } from '../meta.ts';
import type { Obj } from '../store.ts';
import { objAt, strategy } from './strategy.ts';

function validateDataMaps(o: Obj, base64Data: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const field of ['data', 'binaryData']) {
    const m = o[field];
    if (m === undefined || m === null) continue;
    if (!isObj(m)) {
      causes.push({ reason: 'FieldValueInvalid', message: 'Invalid value: must be a map', field });
      continue;
    }
    for (const [k, v] of Object.entries(m)) {
      if (!/^[-._a-zA-Z0-9]+$/.test(k))
        causes.push({
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${k}": a valid config key must consist of alphanumeric characters, '-', '_' or '.'`,
          field: `${field}[${k}]`,
        });
      if (typeof v !== 'string')
        causes.push({
          reason: 'FieldValueInvalid',
          message: 'Invalid value: must be a string',
          field: `${field}[${k}]`,
        });
      else if ((base64Data || field === 'binaryData') && !/^[A-Za-z0-9+/]*={0,2}$/.test(v))
        causes.push({
          reason: 'FieldValueInvalid',
          message: 'Invalid value: illegal base64 data',
          field: `${field}[${k}]`,
        });
    }
  }
  return causes;
}

export const configMapStrategy = strategy({ validate: (o) => validateDataMaps(o, false) });

export const secretStrategy = strategy({
  prepareForCreate(o) {
    o.type ??= 'Opaque';
  },
  canonicalize(o) {
    if (!isObj(o.stringData)) return;
    // stringData is write-only: fold it into base64 data (it wins over data for the same key).
    const data = objAt(o, 'data');
    for (const [k, v] of Object.entries(o.stringData))
      data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    delete o.stringData;
  },
  validate: (o) => validateDataMaps(o, true),
});
