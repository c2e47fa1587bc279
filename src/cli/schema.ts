import { strategyFileJsonSchema } from '../config/strategy-file.ts';
import { schemaPath } from './schema-path.ts';

export { schemaPath };

/** The schema document: the strategy file's JSON Schema with a title, as committed at `schemaPath`. */
export function strategyFileSchemaDocument(): string {
  const { $schema, ...schema } = strategyFileJsonSchema();
  return `${JSON.stringify({ $schema, title: 'routekeeper strategy file', ...schema }, null, 2)}\n`;
}

/** `routekeeper schema`: resolves to the exit code (its help is in catalog.ts). */
export async function run(_argv: string[]): Promise<number> {
  process.stdout.write(strategyFileSchemaDocument());
  return 0;
}
