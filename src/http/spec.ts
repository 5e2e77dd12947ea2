import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { PROJECT_ROOT } from '../support/project-root.ts';

/** openapi.yaml, the HTTP contract, read once. */
export const SPEC_PATH = new URL('openapi.yaml', PROJECT_ROOT);

export interface OpenApiSpec {
  readonly text: string;
  readonly document: Record<string, unknown> & {
    paths: Record<string, Record<string, unknown>>;
    components: { schemas: Record<string, unknown> };
  };
}

let cached: OpenApiSpec | undefined;

export function loadSpec(): OpenApiSpec {
  if (!cached) {
    const text = readFileSync(SPEC_PATH, 'utf8');
    cached = { text, document: parseYaml(text) };
  }
  return cached;
}

/**
 * A schema of components/schemas with every `$ref` inlined, as a self-contained JSON Schema
 * (the game description hands these to bot authors). The spec's schemas have no cycles.
 */
export function standaloneSchema(spec: OpenApiSpec, name: string): Record<string, unknown> {
  return inlinedSchema(spec, spec.document.components.schemas[name]);
}

/** `schema` (any schema of the spec, a property's or a response's too) with every `$ref` inlined. */
export function inlinedSchema(spec: OpenApiSpec, schema: unknown): Record<string, unknown> {
  const schemas = spec.document.components.schemas;
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (node === null || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as Record<string, unknown>;
    const entries = Object.entries(rest).map(([key, value]) => [key, inline(value)]);
    if (typeof $ref !== 'string') return Object.fromEntries(entries);
    const target = inline(schemas[$ref.replace('#/components/schemas/', '')]) as Record<string, unknown>;
    return { ...target, ...Object.fromEntries(entries) };
  };
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...(inline(schema) as object) };
}
