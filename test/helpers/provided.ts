/**
 * A value a project's global setup provides, or a clear error: the file's project did not start it because the
 * config did not see the file ask for it (vitest.config.ts reads which helpers a file calls).
 */
import { type ProvidedContext, inject } from 'vitest';

export function provided<K extends keyof ProvidedContext>(key: K, askedBy: string): ProvidedContext[K] {
  const value = inject(key);
  if (value === undefined) {
    throw new Error(`${key} was not started for this file: vitest.config.ts starts it for files that call ${askedBy} themselves`);
  }
  return value;
}
