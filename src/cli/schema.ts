import { strategyFileJsonSchema } from '../config/strategy-file.ts';
import type { Command } from './command.ts';

export const schemaCommand: Command = {
  name: 'schema',
  summary: "print the strategy file's JSON Schema (for editor completion)",
  help: `Usage: routekeeper schema > routekeeper.schema.json

Prints the JSON Schema of the strategy file. In YAML files, point your editor at it with
# yaml-language-server: $schema=./routekeeper.schema.json`,
  async run() {
    console.log(JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'routekeeper strategy file', ...strategyFileJsonSchema() }, null, 2));
    return 0;
  },
};
