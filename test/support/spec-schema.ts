import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { inlinedSchema, loadSpec, standaloneSchema } from '../../src/http/spec.ts';

// ajv-formats is CommonJS: its default export is the function itself.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

let ajv: Ajv2020 | undefined;
/** Each schema's checker, compiled once per process: files share a fork, and compiling is most of a check's cost. */
const checkers = new Map<string, (value: unknown) => string[]>();

/**
 * Checks documents against one schema of openapi.yaml's `components.schemas` (for what the
 * response validator cannot see, such as the events of a `text/event-stream`). The checker answers
 * the problems found, `[]` for a valid document.
 *
 * @example
 * expect(specSchema('LiveMoveEvent')(JSON.parse(event.data))).toEqual([]);
 */
export function specSchema(name: string): (value: unknown) => string[] {
  let check = checkers.get(name);
  if (check === undefined) {
    check = checker(name, standaloneSchema(loadSpec(), name));
    checkers.set(name, check);
  }
  return check;
}

/** As `specSchema`, for any schema object found in the spec (`where` names it in the problems). */
export function specSubschema(where: string, schema: unknown): (value: unknown) => string[] {
  return checker(where, inlinedSchema(loadSpec(), schema));
}

function checker(where: string, schema: Record<string, unknown>): (value: unknown) => string[] {
  if (ajv === undefined) {
    // Not strict: the spec's schemas carry OpenAPI's `example`, which JSON Schema does not know.
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
  }
  const validate = ajv.compile(schema);
  return (value) =>
    validate(value)
      ? []
      : (validate.errors ?? []).map((error) => `${where}${error.instancePath} ${error.message ?? ''}`);
}
