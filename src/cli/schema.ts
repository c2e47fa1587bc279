import { strategyFileJsonSchema } from '../config/strategy-file.ts';
import type { Command } from './command.ts';

/** Where the package keeps the schema, for editors: `# yaml-language-server: $schema=<this path>`. */
export const schemaPath = 'schema/strategy-file.schema.json';

/** The schema document: the strategy file's JSON Schema with a title, as committed at `schemaPath`. */
export function strategyFileSchemaDocument(): string {
  const { $schema, ...schema } = strategyFileJsonSchema();
  return `${JSON.stringify({ $schema, title: 'routekeeper strategy file', ...schema }, null, 2)}\n`;
}

export const schemaCommand: Command = {
  name: 'schema',
  summary: "print the strategy file's JSON Schema (for editor completion)",
  help: `Usage: routekeeper schema

Prints the JSON Schema of the strategy file: every field with its description, and no field it does not
know (additionalProperties: false), so an editor flags a typo as the daemon would. The package carries it at
${schemaPath}; in a YAML file, point your editor at it:
# yaml-language-server: $schema=node_modules/routekeeper/${schemaPath}`,
  async run() {
    process.stdout.write(strategyFileSchemaDocument());
    return 0;
  },
};
