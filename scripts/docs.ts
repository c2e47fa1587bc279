/**
 * The reference pages that describe the code, generated from it so they cannot drift: the commands and their
 * options from the CLI's own catalog, the strategy file's fields from its JSON Schema's descriptions, the metrics
 * from the registry. `npm run docs` writes them; test/docs/generated.test.ts fails when one is out of date.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { commands } from '../src/cli/catalog.ts';
import { environmentDocs } from '../src/config/env.ts';
import { strategyFileJsonSchema } from '../src/config/strategy-file.ts';
import { HealthMonitor, defaultHealthOptions } from '../src/ops/health.ts';
import { createMetrics } from '../src/ops/metrics.ts';

const notice = (source: string) => `<!-- Generated from ${source} by \`npm run docs\`: edit the source, not this page. -->\n`;

function commandsPage(): string {
  const sections = commands.map(
    (command) =>
      `## \`routekeeper ${command.name}\`\n\n${command.summary[0]?.toUpperCase()}${command.summary.slice(1)}.\n\n\`\`\`text\n${command.help}\n\`\`\`\n`,
  );
  return `${notice('src/cli/catalog.ts')}
# Commands

Every command takes \`--help\` (or \`routekeeper help <command>\`); \`routekeeper --version\` prints the version.
Exit codes: 0 done, 1 failed (the message says why), 2 the command was called wrongly or the configuration is bad
(the message names the option, variable or field). No stack trace is printed for any of these.

${commands.map((command) => `- [\`${command.name}\`](#routekeeper-${command.name}): ${command.summary}`).join('\n')}

${sections.join('\n')}`;
}

type JsonSchema = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  additionalProperties?: JsonSchema | boolean;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  const?: unknown;
};

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function typeOf(schema: JsonSchema): string {
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.enum) return schema.enum.map((value) => `\`${String(value)}\``).join(', ');
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants) return [...new Set(variants.map(typeOf))].join(' or ');
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? 'any');
  if (type === 'array' && schema.items) return `list of ${typeOf(schema.items)}`;
  if (type === 'object' && schema.additionalProperties && typeof schema.additionalProperties === 'object')
    return `map of ${typeOf(schema.additionalProperties)}`;
  return type;
}

function limits(schema: JsonSchema): string {
  const parts: string[] = [];
  if (schema.minimum !== undefined) parts.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) parts.push(`≤ ${schema.maximum}`);
  if (schema.default !== undefined && typeof schema.default !== 'object') parts.push(`default \`${JSON.stringify(schema.default)}\``);
  return parts.join(', ');
}

/** One row per field, depth first, with its dotted path (`strategies[].sell.amount`). */
function fieldRows(schema: JsonSchema, path: string, rows: string[]): void {
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const at = path ? `${path}.${name}` : name;
    const required = schema.required?.includes(name) ? 'yes' : '';
    rows.push(`| \`${at}\` | ${cell(typeOf(field))} | ${required} | ${cell([field.description ?? '', limits(field)].filter(Boolean).join(' '))} |`);
    const inner =
      field.type === 'array' ? field.items : field.additionalProperties && typeof field.additionalProperties === 'object' ? field.additionalProperties : field;
    if (inner && inner !== field) fieldRows(inner, field.type === 'array' ? `${at}[]` : `${at}.<name>`, rows);
    else if (field.properties) fieldRows(field, at, rows);
  }
}

function strategyFilePage(): string {
  const schema = strategyFileJsonSchema() as JsonSchema;
  const top: string[] = [];
  const { strategies, ...rest } = schema.properties ?? {};
  fieldRows({ ...schema, properties: rest }, '', top);
  const kinds = (strategies?.items?.oneOf ?? []).map((kind) => {
    const name = String(kind.properties?.kind?.const ?? kind.properties?.kind?.enum?.[0] ?? '?');
    const rows: string[] = [];
    fieldRows(kind, 'strategies[]', rows);
    return `## \`kind: ${name}\`\n\n${kind.description ? `${kind.description}\n\n` : ''}| field | type | required | what it is |\n| --- | --- | --- | --- |\n${rows.join('\n')}\n`;
  });
  return `${notice('the strategy file schema, src/config/strategy-file.ts')}
# The strategy file: every field

YAML or JSON; unknown fields are errors. The JSON Schema is \`schema/strategy-file.schema.json\` (\`routekeeper schema\`).
How to write one, with examples: [strategies.md](../strategies.md).

## Top level

| field | type | required | what it is |
| --- | --- | --- | --- |
${top.join('\n')}

${kinds.join('\n')}`;
}

async function metricsPage(): Promise<string> {
  const { registry } = createMetrics();
  // The daemon's health gauges join the same registry when it starts.
  new HealthMonitor([], defaultHealthOptions, registry);
  const rows = (await registry.getMetricsAsJSON())
    .filter((metric) => metric.name.startsWith('routekeeper_'))
    .map((metric) => {
      const labels = ((registry.getSingleMetric(metric.name) as unknown as { labelNames?: string[] }).labelNames ?? [])
        .map((label) => `\`${label}\``)
        .join(', ');
      return `| \`${metric.name}\` | ${metric.type} | ${labels} | ${cell(metric.help)} |`;
    });
  return `${notice('the metrics registry, src/ops/metrics.ts')}
# Metrics

\`GET /metrics\` on \`METRICS_PORT\` (Prometheus text format), beside Node's default process metrics.

| metric | type | labels | what it measures |
| --- | --- | --- | --- |
${rows.join('\n')}
`;
}

function environmentPage(): string {
  const rows = Object.entries(environmentDocs).map(([name, { usedFor, byDefault }]) => `| \`${name}\` | ${cell(usedFor)} | ${cell(byDefault)} |`);
  return `${notice('src/config/env.ts')}
# The environment

Read from the environment, or from a \`.env\` file in the working directory (\`routekeeper init\` writes one;
\`.env.example\` lists them all). Empty values count as unset. A bad value stops the command with exit 2 and names
the variable, never its value.

| variable | used for | default |
| --- | --- | --- |
${rows.join('\n')}
| the variable each wallet names (e.g. \`ROUTEKEEPER_PRIVATE_KEY\`) | that wallet's private key | on the embedded devnet, a funded test account |
`;
}

/** Every generated page: its path under docs/ and its text. */
export async function generatedPages(): Promise<{ path: string; text: string }[]> {
  return [
    { path: 'reference/commands.md', text: commandsPage() },
    { path: 'reference/strategy-file.md', text: strategyFilePage() },
    { path: 'reference/metrics.md', text: await metricsPage() },
    { path: 'reference/environment.md', text: environmentPage() },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const page of await generatedPages()) {
    writeFileSync(new URL(`../docs/${page.path}`, import.meta.url), page.text);
    console.log(`docs/${page.path}`);
  }
}
