// Reads openapi.yaml (served as JSON at /openapi.json) for people: schemas as tables of fields, their
// examples, operations, and the spec's markdown as DOM. The spec is the one source of truth, so pages
// render it instead of copying field lists. Its text reaches the page only as text nodes.
import { el } from './common.js';

const REF_PREFIX = '#/components/schemas/';

/** The name a `$ref` points at (`#/components/schemas/BotState` → `BotState`), or null. */
export const refName = (node) =>
  typeof node?.$ref === 'string' && node.$ref.startsWith(REF_PREFIX)
    ? node.$ref.slice(REF_PREFIX.length)
    : null;

/**
 * A schema with its `$ref` followed (repeatedly); the referring node's own keys, such as a property's
 * `description`, win over the target's, as in OpenAPI 3.1.
 */
export function resolve(doc, node) {
  let current = node;
  for (let name = refName(current); name; name = refName(current)) {
    const { $ref: _ignored, ...own } = current;
    current = { ...doc.components.schemas[name], ...own };
  }
  return current ?? {};
}

/** The non-null branch of `oneOf: [X, {type: 'null'}]`, or the schema itself. */
function nonNull(doc, node) {
  const branches = (node.oneOf ?? node.anyOf ?? []).filter((branch) => branch.type !== 'null');
  return branches.length === 1 ? resolve(doc, branches[0]) : node;
}

/** Properties and required names of an object schema, `allOf` parts merged in order. */
export function objectShape(doc, schema) {
  const node = resolve(doc, schema);
  const shape = { properties: { ...(node.properties ?? {}) }, required: new Set(node.required ?? []) };
  for (const part of node.allOf ?? []) {
    const inner = objectShape(doc, part);
    Object.assign(shape.properties, inner.properties);
    for (const name of inner.required) shape.required.add(name);
  }
  return shape;
}

const isObject = (node) => node.type === 'object' || Boolean(node.properties) || Boolean(node.allOf);

/**
 * A schema's type in a few words: `"black" | "white"`, `integer ≥ 1`, `array of Square: string
 * matching ^[a-h][1-8]$`, `RulesOptions (object)`, `integer or null`.
 */
export function typeText(doc, node) {
  const alternatives = node.oneOf ?? node.anyOf;
  if (alternatives) return alternatives.map((branch) => typeText(doc, branch)).join(' or ');
  const name = refName(node);
  const schema = resolve(doc, node);
  if (name && isObject(schema)) return `${name} (object)`;
  const plain = plainType(doc, schema);
  return name && !schema.enum ? `${name}: ${plain}` : plain;
}

function plainType(doc, schema) {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (Array.isArray(schema.type))
    return schema.type.join(' or ') + (schema.format ? ` (${schema.format})` : '');
  if (schema.type === 'array') {
    const count = schema.minItems === schema.maxItems && schema.minItems ? `${schema.minItems} × ` : '';
    return `array of ${count}${typeText(doc, schema.items ?? {})}`;
  }
  const bounds = [
    schema.minimum !== undefined ? `≥ ${schema.minimum}` : '',
    schema.maximum !== undefined ? `≤ ${schema.maximum}` : '',
  ].filter(Boolean);
  const pattern = schema.pattern ? ` matching ${schema.pattern}` : '';
  const format = schema.format ? ` (${schema.format})` : '';
  return [schema.type ?? 'any', ...bounds].join(' ') + pattern + format;
}

/**
 * The rows of a schema's field table: `{ name, type, required, description }`, one per property, then
 * the properties of nested objects (one level down) as `rules.timeLimitMs` or `history[].ply`.
 * @example fieldRows(spec, { $ref: '#/components/schemas/BotAction' }).map((row) => row.name)
 * // ['action', 'direction']
 */
export function fieldRows(doc, schema, prefix = '', depth = 0) {
  const { properties, required } = objectShape(doc, schema);
  return Object.entries(properties).flatMap(([key, property]) => {
    const resolved = resolve(doc, property);
    const row = {
      name: prefix + key,
      type: typeText(doc, property),
      required: required.has(key),
      description: resolved.description ?? nonNull(doc, resolved).description ?? '',
    };
    if (depth >= 1) return [row];
    const inner = nonNull(doc, resolved);
    if (isObject(inner)) return [row, ...fieldRows(doc, inner, `${row.name}.`, depth + 1)];
    const items = inner.type === 'array' && inner.items ? resolve(doc, inner.items) : null;
    if (items && isObject(items)) return [row, ...fieldRows(doc, items, `${row.name}[].`, depth + 1)];
    return [row];
  });
}

/** A table of a schema's fields, scrolling in its own box on narrow screens. */
export function fieldTable(doc, schema, label) {
  const rows = fieldRows(doc, schema).map((row) =>
    el(
      'tr',
      { dataset: { field: row.name } },
      el('th', { scope: 'row' }, el('code', {}, row.name)),
      el('td', { class: 'type' }, el('code', {}, row.type)),
      el('td', {}, row.required ? 'required' : 'optional'),
      el('td', { class: 'desc' }, inline(row.description.trim())),
    ),
  );
  return dataTable(label, ['Field', 'Type', 'Presence', 'Meaning'], rows);
}

/**
 * A table with a visually hidden caption and a header row, scrolling in its own box on narrow
 * screens; `attributes` go on the table (an `id`, say).
 */
export function dataTable(label, columns, rows, attributes = {}) {
  return scrollBox(
    label,
    el(
      'table',
      { class: 'data fields', ...attributes },
      el('caption', { class: 'visually-hidden' }, label),
      el('thead', {}, el('tr', {}, ...columns.map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, rows),
    ),
  );
}

/** A box that scrolls sideways; focusable, so a keyboard can scroll it (WCAG 2.1.1). */
export function scrollBox(label, child) {
  return el('div', { class: 'table-scroll', role: 'region', 'aria-label': label, tabindex: '0' }, child);
}

/** A block of code (JSON, HTTP, an event stream) as text, scrolling in its own box. */
export function codeBlock(label, text) {
  return el(
    'pre',
    { class: 'code', role: 'region', 'aria-label': label, tabindex: '0' },
    el('code', {}, text),
  );
}

/** A value as pretty JSON in a code block. */
export const jsonBlock = (label, value) => codeBlock(label, prettyJson(value));

/**
 * JSON indented by two spaces, except that an array of plain values stays on one line when it fits
 * (a board, the legal moves), as people write it.
 * @example prettyJson({ legalMoves: ['e3', 'f4'] }) // '{\n  "legalMoves": ["e3", "f4"]\n}'
 */
export function prettyJson(value, indent = '') {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const flat = `[${value.map((item) => JSON.stringify(item)).join(', ')}]`;
    if (
      value.every((item) => item === null || typeof item !== 'object') &&
      indent.length + flat.length <= 100
    ) {
      return flat;
    }
    return `[\n${value.map((item) => inner + prettyJson(item, inner)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const lines = entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${prettyJson(item, inner)}`);
  return `{\n${lines.join(',\n')}\n${indent}}`;
}

const INLINE = /(`[^`]+`|\*\*[^*]+\*\*|\*[^*\s][^*]*\*)/;

/** The spec's inline markdown (`code`, **strong**, *em*) as nodes; everything else stays text. */
export function inline(text) {
  return text
    .split(INLINE)
    .filter(Boolean)
    .map((part) => {
      if (part.startsWith('`')) return el('code', {}, part.slice(1, -1));
      if (part.startsWith('**')) return el('strong', {}, part.slice(2, -2));
      if (part.startsWith('*') && part.length > 2) return el('em', {}, part.slice(1, -1));
      return part;
    });
}

/**
 * The spec's markdown as DOM: paragraphs (split on blank lines) and `- ` lists, with inline code,
 * strong and emphasis. No HTML is ever parsed.
 */
export function markdown(text) {
  return paragraphs(text).map((block) => {
    const lines = block.split('\n');
    if (lines.every((line) => line.startsWith('- '))) {
      return el('ul', {}, ...lines.map((line) => el('li', {}, inline(line.slice(2)))));
    }
    return el('p', {}, inline(lines.join(' ')));
  });
}

/** Blocks of text separated by blank lines, each line trimmed. */
export const paragraphs = (text) =>
  (text ?? '')
    .split(/\n\s*\n/)
    .map((block) =>
      block
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean)
        .join('\n'),
    )
    .filter(Boolean);

/**
 * What each value of an enum means, from its description's list items (`` - `value`: meaning ``).
 * @example enumMeanings(spec.components.schemas.ResultReason).get('completed') // 'played to the end.'
 */
export function enumMeanings(schema) {
  const meanings = new Map();
  for (const [, value, meaning] of (schema.description ?? '').matchAll(/^\s*- `([^`]+)`: (.+)$/gm)) {
    meanings.set(value, meaning.trim());
  }
  return meanings;
}
