import { z } from 'zod';
import { events, operations } from './catalogue';
import { consumers, publisherOf } from './consumers';
import { describeSelector, domainPrefix, operationCost } from './operation';

/**
 * The operation and event reference in docs/ is generated from here (`npm run docs`), and a test
 * fails when the committed files differ, so the reference cannot drift from the contracts.
 */
export function operationsReference(): string {
  const lines = [
    '# Operations',
    '',
    '<!-- Generated from packages/contracts by `npm run docs`; do not edit by hand. -->',
    '',
    'Every operation is a POST of a JSON body to its path (trailing slash optional). Operations sharing a path',
    'are told apart by `action`, then a boolean flag, then the presence of a field, then the default.',
    'Operations marked "domain-wide" are accepted on every path of their domain; the canonical path is listed first.',
    "The cost is what one call weighs against its organization's rate and concurrency limits (docs/api.md, Rate limits).",
    '',
    '| operation | service | canonical path | selected by | domain-wide | write | cost | summary |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const op of operations) {
    if (op.paths.length === 0) continue;
    const domain = op.domainWide ? `yes (${domainPrefix[op.service]}/*)` : 'no';
    lines.push(
      `| \`${op.name}\` | ${op.service} | \`${op.paths[0]}\` | ${describeSelector(op.select)} | ${domain} | ${op.write ? 'yes' : 'no'} | ${operationCost(op)} | ${op.summary} |`,
    );
  }
  lines.push('', '## Internal operations (RPC only, no HTTP path)', '');
  for (const op of operations.filter((o) => o.paths.length === 0)) lines.push(`- \`${op.name}\` (${op.service}): ${op.summary}`);
  lines.push(
    '',
    'Request and reply schemas of each operation: `components/schemas/<operation>.request` and `.reply` in `GET /openapi.json`;',
    'an example of each, request and answer, at `/docs` (`packages/contracts/src/examples.ts`).',
    '',
  );
  return lines.join('\n');
}

export function eventsReference(): string {
  const lines = [
    '# Events',
    '',
    '<!-- Generated from packages/contracts by `npm run docs`; do not edit by hand. -->',
    '',
    "Published through each service's outbox to the topic exchange `<BUS_PREFIX>.events` with the routing key",
    'equal to the type, persistent, with publisher confirms. Body: `{ id (uuid), type, occurred_at (YYYY-MM-DDTHH:MM:SS, UTC), org_id, data }`.',
    'Consumers record `id` in their inbox in the same transaction as the effect, so a redelivery has no second effect.',
    'Delivery is at least once and order is not guaranteed. `GET /asyncapi.json` (or `docs/asyncapi.json`) describes the same in AsyncAPI 3.0.',
    '',
  ];
  for (const e of events) {
    const takers = consumers
      .filter((c) => c.events.includes(e.type))
      .map((c) => `\`${c.name}\` (${c.service}${c.routed ? ', only while routed to it' : ''})`);
    const flow = `Published by ${publisherOf(e.type)}; consumed by ${takers.length ? takers.join(', ') : 'none yet'}.`;
    lines.push(`## \`${e.type}\``, '', e.summary, '', flow, '', '| field | type | required |', '|---|---|---|');
    const schema = z.toJSONSchema(e.data, { io: 'output', unrepresentable: 'any' }) as {
      properties?: Record<string, { type?: string | string[]; anyOf?: Array<{ type?: string }>; enum?: unknown[] }>;
      required?: string[];
    };
    const props = Object.entries(schema.properties ?? {});
    if (props.length === 0) lines.push('| (any object) | | |');
    for (const [name, prop] of props) lines.push(`| \`${name}\` | ${typeName(prop)} | ${schema.required?.includes(name) ? 'yes' : 'no'} |`);
    lines.push('');
  }
  return lines.join('\n');
}

function typeName(prop: { type?: string | string[]; anyOf?: Array<{ type?: string }>; enum?: unknown[] }): string {
  if (prop.enum) return prop.enum.map((v) => `\`${String(v)}\``).join(' \\| ');
  if (Array.isArray(prop.type)) return prop.type.join(' \\| ');
  if (prop.type) return prop.type;
  if (prop.anyOf) return prop.anyOf.map((p) => p.type ?? 'object').join(' \\| ');
  return 'any';
}
