// String formats our schemas use, registered with TypeBox so its checks verify them: the inputs'
// validator registers them when it is loaded (shared/validate.ts, which the routes' declarations in
// server/route.ts and the worker's search step both import), and a test that checks a schema without it.
import { FormatRegistry } from '@sinclair/typebox';
import { isUuid } from '../ids.ts';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export function registerFormats(): void {
  if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', isUuid);
  if (!FormatRegistry.Has('date-time'))
    FormatRegistry.Set('date-time', (s) => RFC3339.test(s) && !Number.isNaN(Date.parse(s)));
}
