// The match page's words: the outcome panel, the rules line and the details list.
import {
  botLink,
  capitalize,
  chip,
  el,
  formatDateTime,
  formatDelta,
  formatDuration,
  formatRating,
  otherColor,
  REASON_TEXT,
  timeControlText,
} from './common.js';

const player = (match, color) =>
  el(
    'span',
    { class: 'players' },
    chip(color),
    botLink(match[color]),
    ' ',
    el('span', { class: 'muted' }, `(${color})`),
  );

/** "White moves first · every trapped line flips · scored by discs · 1 s a move + 5 s bank · rated" */
export function rulesText(match) {
  const r = match.rules;
  return [
    `${capitalize(r.firstPlayer)} moves first`,
    r.captureRule === 'all' ? 'every trapped line flips' : 'one trapped line flips (single-direction)',
    r.scoring === 'discs' ? 'scored by discs' : 'empty squares go to the winner',
    timeControlText(r),
    match.rated ? 'rated' : 'unrated',
  ].join(' · ');
}

/** The outcome panel's content and its style ('ok' | 'warn' | 'error' | ''). */
export function outcome(match, toMove) {
  if (match.status === 'queued') {
    return {
      kind: '',
      nodes: [el('p', {}, el('strong', {}, 'Queued. '), 'Waiting for a worker to start it.')],
    };
  }
  if (match.status === 'running' || !match.result) {
    return {
      kind: '',
      nodes: [
        el(
          'p',
          {},
          el('strong', {}, 'Live. '),
          `${match.moves.length} ${match.moves.length === 1 ? 'ply' : 'plies'} played; ${toMove} to move. `,
          'The board follows the game as it is played.',
        ),
      ],
    };
  }
  const { result } = match;
  const score = `${result.discs.black}–${result.discs.white}`;
  const nodes = [];
  if (result.reason === 'aborted') {
    nodes.push(el('p', {}, el('strong', {}, 'Aborted. '), 'The arena stopped the match; no winner.'));
  } else if (result.reason === 'no-show') {
    nodes.push(
      result.winner === null
        ? // Recorded before no-shows counted as faults.
          el('p', {}, el('strong', {}, 'No-show. '), 'No winner; no rating changed.')
        : el(
            'p',
            {},
            el('strong', {}, 'No-show. '),
            player(match, result.winner),
            ' wins: ',
            player(match, otherColor(result.winner)),
            ' never made a move.',
          ),
    );
  } else if (result.winner === null) {
    nodes.push(el('p', {}, el('strong', {}, `Draw, ${score}`), ' (black–white).'));
  } else {
    nodes.push(
      el('p', {}, el('strong', {}, player(match, result.winner), ` wins, ${score}`), ' (black–white).'),
    );
  }
  if (result.reason !== 'completed' && result.reason !== 'aborted') {
    const atFault = result.fault?.player ?? otherColor(result.winner ?? 'black');
    nodes.push(
      el(
        'p',
        {},
        'Reason: ',
        el('strong', {}, result.reason),
        ' — ',
        botLink(match[atFault]),
        ` (${atFault}) ${REASON_TEXT[result.reason] ?? result.reason}.`,
      ),
    );
  } else {
    nodes.push(el('p', {}, 'Reason: ', el('strong', {}, result.reason), ` — ${REASON_TEXT[result.reason]}.`));
  }
  if (result.fault) nodes.push(faultDetails(result.fault));
  if (match.rules.scoring !== 'discs' && result.reason === 'completed') {
    nodes.push(el('p', { class: 'muted' }, 'The score gives the empty squares to the winner.'));
  }
  if (match.ratings) {
    const change = (color) => {
      const { before, after } = match.ratings[color];
      return `${match[color].name} ${formatRating(before)} → ${formatRating(after)} (${formatDelta(after - before)})`;
    };
    nodes.push(el('p', {}, 'Elo: ', change('black'), '; ', change('white'), '.'));
  }
  const kind = result.reason === 'completed' ? 'ok' : result.reason === 'aborted' ? 'warn' : 'error';
  return { kind, nodes };
}

function faultDetails(fault) {
  const rows = [['Message', fault.message]];
  // A no-show's reason says only that the bot never moved; its fault says what went wrong.
  if (fault.reason) rows.unshift(['Fault', fault.reason]);
  if (fault.status !== undefined) rows.push(['HTTP status', String(fault.status)]);
  if (fault.latencyMs !== undefined) rows.push(['Answered after', `${fault.latencyMs} ms`]);
  return el(
    'div',
    {},
    el(
      'dl',
      { class: 'profile' },
      rows.map(([term, value]) => el('div', {}, el('dt', {}, term), el('dd', {}, value))),
    ),
    fault.body
      ? [el('p', {}, 'The first bytes of its answer:'), el('pre', { class: 'fault-body' }, fault.body)]
      : null,
  );
}

/** The details list under the board. */
export function details(match) {
  const rows = [
    ['Black', botLink(match.black)],
    ['White', botLink(match.white)],
    ['Status', match.status],
    ['Created', formatDateTime(match.createdAt)],
    ['Started', match.startedAt ? formatDateTime(match.startedAt) : '—'],
    ['Finished', match.finishedAt ? formatDateTime(match.finishedAt) : '—'],
    ['First player', match.rules.firstPlayer],
    ['Capture rule', match.rules.captureRule],
    ['Scoring', match.rules.scoring],
    ['Time limit', `${formatDuration(match.rules.timeLimitMs)} a move`],
    ['Overage bank', formatDuration(match.rules.overageMs)],
    ['Rated', match.rated ? 'yes' : 'no'],
    ['Match id', el('code', { class: 'id' }, match.id)],
  ];
  return rows.map(([term, value]) => el('div', {}, el('dt', {}, term), el('dd', {}, value)));
}
