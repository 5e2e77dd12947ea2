// The bot protocol page (/protocol): push and pull explained for people, rendered from the contract
// itself (GET /openapi.json, the parsed openapi.yaml) and the server's time limits (GET /v1/games/reversi),
// so the page cannot drift from what the arena sends and accepts.
import { api, el, errorMessage, replaceChildren } from './common.js';
import {
  codeBlock,
  dataTable,
  enumMeanings,
  fieldTable,
  inline,
  jsonBlock,
  markdown,
  paragraphs,
  resolve,
  typeText,
} from './spec-view.js';

const $ = (id) => document.getElementById(id);
const ms = (value) => `${value} ms`;

/** The paragraphs of the spec's introduction that start with these bold leads, in this order. */
function introParagraphs(spec, leads) {
  const blocks = paragraphs(spec.info.description);
  return leads.flatMap((lead) => blocks.filter((block) => block.startsWith(`**${lead}`))).flatMap(markdown);
}

/** A schema's description, field table and example. */
function schemaView(spec, name) {
  const schema = spec.components.schemas[name];
  return [
    ...markdown(schema.description),
    fieldTable(spec, { $ref: `#/components/schemas/${name}` }, `Fields of ${name}`),
    schema.example === undefined ? null : el('h4', {}, 'Example'),
    schema.example === undefined ? null : jsonBlock(`Example ${name}`, schema.example),
  ];
}

function authText(security) {
  const schemes = (security ?? []).map((entry) => Object.keys(entry).length);
  if (schemes.length === 0) return 'No token needed.';
  return schemes.includes(0) ? "The bot's token is optional." : "Needs the bot's token.";
}

const resolveRef = (spec, node, kind) =>
  node?.$ref?.startsWith(`#/components/${kind}/`)
    ? spec.components[kind][node.$ref.split('/').pop()]
    : (node ?? {});

/** One operation of the API: what to send, what comes back, and the spec's words about it. */
function operationView(spec, path, method) {
  const op = spec.paths[path][method];
  const params = [...(spec.paths[path].parameters ?? []), ...(op.parameters ?? [])]
    .map((param) => resolveRef(spec, param, 'parameters'))
    .filter((param) => param.in !== 'path');
  const body = op.requestBody?.content?.['application/json']?.schema;
  const bodyName = body?.$ref?.split('/').pop();
  // Answers that are only the shared problem document are listed together, after the specific ones.
  const entries = Object.entries(op.responses);
  const shared = entries.filter(([, response]) => response.$ref).map(([status]) => status);
  const responses = entries
    .filter(([, response]) => !response.$ref)
    .map(([status, response]) => {
      const [type, media] = Object.entries(response.content ?? {})[0] ?? [];
      const schema = media?.schema?.$ref?.split('/').pop();
      return el(
        'li',
        {},
        el('code', {}, status),
        ': ',
        inline(response.description.trim()),
        status.startsWith('2') && type ? ` (${type}${schema ? `: ${schema}` : ''})` : null,
      );
    });
  if (shared.length > 0) {
    const problem = resolveRef(spec, op.responses[shared[0]], 'responses');
    responses.push(
      el(
        'li',
        {},
        shared.flatMap((status, i) => [i ? ', ' : '', el('code', {}, status)]),
        ': ',
        inline(problem.description.trim()),
      ),
    );
  }
  const example = Object.values(op.responses['200']?.content ?? {})[0]?.example;
  return el(
    'section',
    { class: 'operation', id: op.operationId, 'aria-labelledby': `${op.operationId}-title` },
    el('h3', { id: `${op.operationId}-title` }, el('code', {}, `${method.toUpperCase()} ${path}`)),
    el('p', {}, el('strong', {}, op.summary), '. ', authText(op.security ?? spec.security)),
    ...markdown(op.description),
    params.length === 0 ? null : el('h4', {}, 'Parameters'),
    params.length === 0
      ? null
      : el(
          'ul',
          {},
          params.map((param) =>
            el(
              'li',
              {},
              el('code', {}, param.name),
              ` (${param.in}, ${typeText(spec, param.schema)})`,
              param.description ? [': ', ...inline(param.description.trim())] : null,
            ),
          ),
        ),
    bodyName ? el('h4', {}, 'Body: ', el('code', {}, bodyName)) : null,
    bodyName ? schemaView(spec, bodyName) : null,
    el('h4', {}, 'Answers'),
    el('ul', {}, responses),
    typeof example === 'string' ? codeBlock(`Example answer of ${path}`, example.trimEnd()) : null,
  );
}

/** The push protocol: the botTurn webhook, its signature headers, and one signed call in full. */
function pushView(spec) {
  const turn = spec.webhooks.botTurn.post;
  const headers = turn.parameters.filter((param) => param.in === 'header');
  const schemas = spec.components.schemas;
  const state = schemas.BotState.example;
  const url = new URL(schemas.BotUrl.example);
  const secret = schemas.BotSecrets.properties.webhookSecret.example;
  const request = [
    `POST ${url.pathname} HTTP/1.1`,
    `Host: ${url.host}`,
    'Content-Type: application/json',
    ...headers.map((param) => `${param.name}: ${param.example}`),
    '',
    JSON.stringify(state),
  ].join('\n');
  const answer = [
    'HTTP/1.1 200 OK',
    'Content-Type: application/json',
    '',
    JSON.stringify(schemas.BotAction.example),
  ];
  return [
    el('p', { class: 'lead' }, el('strong', {}, turn.summary), '.'),
    ...markdown(turn.description),
    el('h3', { id: 'signature' }, 'Request signature'),
    dataTable(
      'Signature headers',
      ['Header', 'Meaning', 'Example'],
      headers.map((param) =>
        el(
          'tr',
          {},
          el('th', { scope: 'row' }, el('code', {}, param.name)),
          el('td', { class: 'desc' }, markdown(param.description)),
          el('td', { class: 'type' }, el('code', {}, param.example)),
        ),
      ),
      { id: 'signature-headers' },
    ),
    el('h3', {}, 'A signed call'),
    el(
      'p',
      {},
      'The call for the example state below, to a bot at ',
      el('code', {}, url.href),
      ' whose ',
      el('code', {}, 'webhookSecret'),
      ' is ',
      el('code', {}, secret),
      '. Your bot should accept its signature; its timestamp is old, so skip the time check for this one.',
    ),
    codeBlock('A signed call', request),
    el('p', {}, 'and a valid answer:'),
    codeBlock('A valid answer', answer.join('\n')),
    operationView(spec, '/v1/bots/me/check', 'post'),
  ];
}

/** Every rules option with its default, its rated value and what the server accepts. */
function rulesView(spec, game) {
  const shape = spec.components.schemas.RulesOptions.properties;
  const rows = Object.entries(shape).map(([name, property]) => {
    const bounds = game.limits[name];
    const values = resolve(spec, property).enum;
    const allowed = bounds ? `${ms(bounds.min)} to ${ms(bounds.max)}` : (values ?? []).join(', ');
    const show = (value) => (bounds ? ms(value) : String(value));
    return el(
      'tr',
      { dataset: { option: name } },
      el('th', { scope: 'row' }, el('code', {}, name)),
      el('td', { class: 'desc' }, inline((resolve(spec, property).description ?? '').trim())),
      el('td', {}, show(game.defaultRules[name])),
      el('td', { class: 'rated' }, show(game.ratedRules[name])),
      el('td', {}, allowed),
    );
  });
  const head = ['Option', 'Meaning', 'Default', 'Rated matches', 'Allowed'];
  return [
    el(
      'p',
      { id: 'rated-time' },
      'Rated matches give each bot ',
      el('strong', {}, ms(game.ratedRules.timeLimitMs)),
      ' per move, plus an overage bank of ',
      el('strong', {}, ms(game.ratedRules.overageMs)),
      ' per match that absorbs slower moves. When both are spent, the bot loses by ',
      el('code', {}, 'timeout'),
      '.',
    ),
    dataTable('Rules options', head, rows, { id: 'rules-options' }),
  ];
}

/** Why matches end, marking the reasons that are a bot's fault. */
function reasonsView(spec) {
  const schemas = spec.components.schemas;
  const meanings = enumMeanings(schemas.ResultReason);
  const faults = new Set(schemas.Fault.properties.reason.enum);
  const reasons = [...new Set([...schemas.ResultReason.enum, ...faults])];
  const intro = paragraphs(schemas.ResultReason.description).filter((block) => !block.startsWith('- '));
  return [
    ...intro.flatMap(markdown),
    dataTable(
      'Result reasons',
      ['Reason', 'Fault', 'Meaning'],
      reasons.map((reason) =>
        el(
          'tr',
          { dataset: { reason } },
          el('th', { scope: 'row' }, el('code', {}, reason)),
          el('td', {}, faults.has(reason) ? 'fault' : '—'),
          el('td', { class: 'desc' }, inline(meanings.get(reason) ?? '')),
        ),
      ),
      { id: 'reasons' },
    ),
    el('h3', {}, 'The fault record: ', el('code', {}, 'Fault')),
    ...schemaView(spec, 'Fault'),
  ];
}

function render(spec, game) {
  const pullTag = spec.tags.find((tag) => tag.name === 'Pull bots');
  const pullOps = Object.entries(spec.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, op]) => op?.tags?.includes('Pull bots'))
      .map(([method]) => operationView(spec, path, method)),
  );
  replaceChildren($('intro'), introParagraphs(spec, ['Bots', 'Authentication.']));
  replaceChildren(
    $('getting-matches-body'),
    introParagraphs(spec, ['Getting matches.', 'House bots.', 'Fair play.']),
    operationView(spec, '/v1/bots/me', 'get'),
  );
  replaceChildren($('push-body'), pushView(spec));
  replaceChildren($('pull-body'), markdown(pullTag?.description), pullOps);
  replaceChildren($('state-body'), schemaView(spec, 'BotState'));
  replaceChildren($('action-body'), schemaView(spec, 'BotAction'));
  replaceChildren($('match-state-body'), schemaView(spec, 'MatchState'));
  replaceChildren($('time-body'), rulesView(spec, game));
  replaceChildren($('faults-body'), reasonsView(spec));
}

async function load() {
  try {
    const [spec, game] = await Promise.all([api('/openapi.json'), api('/v1/games/reversi')]);
    render(spec, game);
    $('protocol').hidden = false;
    $('status').textContent = `From the API contract, version ${spec.info.version}.`;
    // The sections exist only now, so a link to one of them (/protocol#push) is followed by hand.
    if (location.hash) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
  } catch (error) {
    $('status').textContent = '';
    $('load-error').textContent = errorMessage(error);
    $('load-error').hidden = false;
  }
}

load();
