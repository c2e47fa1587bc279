/** Where the package keeps the strategy file's JSON Schema, for editors: `# yaml-language-server: $schema=<path>`. */
export const schemaPath = 'schema/strategy-file.schema.json';
