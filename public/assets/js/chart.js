// The rating-history chart: a hand-made SVG line chart with axes, ticks and labels. It is drawn at
// the container's real pixel width (and redrawn when that changes) so its text stays 12 px on a phone
// instead of shrinking with a scaled viewBox.
import { formatDateTime, formatDelta, formatRating, svg } from './common.js';

const MARGIN = { top: 14, right: 16, bottom: 46, left: 56 };
const RESULT = { 1: 'win', 0.5: 'draw', 0: 'loss' };

/** A "nice" step (1, 2 or 5 times a power of ten) close to `rough`. */
function niceStep(rough) {
  const power = 10 ** Math.floor(Math.log10(rough));
  const fraction = rough / power;
  return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * power;
}

/** Tick values covering [min, max] with about `count` steps. */
export function niceTicks(min, max, count) {
  const step = niceStep((max - min) / count);
  const ticks = [];
  for (let v = Math.floor(min / step) * step; v <= Math.ceil(max / step) * step + step / 2; v += step) {
    ticks.push(Math.round(v * 1e6) / 1e6);
  }
  return ticks;
}

/**
 * Draws the chart of `items` (the RatingHistory entries, oldest first) `width` pixels wide. Game 0 is
 * the rating before the first listed game.
 * @returns {SVGSVGElement}
 */
export function ratingChart(items, width, ids = { title: 'chart-title', desc: 'chart-desc' }) {
  const W = Math.max(280, Math.round(width));
  const H = Math.round(Math.min(320, Math.max(210, W * 0.42)));
  const plotW = W - MARGIN.left - MARGIN.right;
  const plotH = H - MARGIN.top - MARGIN.bottom;
  const values = [items[0].before, ...items.map((item) => item.after)];
  const n = items.length;

  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (hi - lo < 20) {
    const mid = (hi + lo) / 2;
    lo = mid - 10;
    hi = mid + 10;
  }
  const yTicks = niceTicks(lo, hi, Math.max(3, Math.min(6, Math.floor(plotH / 45))));
  const yMin = yTicks[0];
  const yMax = yTicks[yTicks.length - 1];
  const x = (i) => MARGIN.left + (n === 0 ? 0 : (i / n) * plotW);
  const y = (v) => MARGIN.top + plotH - ((v - yMin) / (yMax - yMin)) * plotH;

  const xStep = Math.max(1, Math.ceil(niceStep(Math.max(1, n / Math.max(2, Math.floor(plotW / 56))))));
  const xTicks = [];
  for (let i = 0; i <= n; i += xStep) xTicks.push(i);

  const first = values[0];
  const last = values[n];
  const summary =
    `${n} rated ${n === 1 ? 'game' : 'games'}: Elo from ${formatRating(first)} to ${formatRating(last)} ` +
    `(${formatDelta(last - first)}), highest ${formatRating(Math.max(...values))}, lowest ${formatRating(Math.min(...values))}.`;

  const path = values.map((v, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const radius = n > 80 ? 2.5 : 4;

  return svg(
    'svg',
    {
      width: W,
      height: H,
      viewBox: `0 0 ${W} ${H}`,
      role: 'img',
      'aria-labelledby': `${ids.title} ${ids.desc}`,
    },
    svg('title', { id: ids.title }, 'Elo rating history'),
    svg('desc', { id: ids.desc }, summary),
    svg(
      'g',
      { class: 'grid' },
      yTicks.map((t) => svg('line', { x1: MARGIN.left, x2: W - MARGIN.right, y1: y(t), y2: y(t) })),
    ),
    first >= yMin && first <= yMax
      ? svg('line', { class: 'baseline', x1: MARGIN.left, x2: W - MARGIN.right, y1: y(first), y2: y(first) })
      : null,
    svg(
      'g',
      { class: 'axis y' },
      svg('line', { x1: MARGIN.left, x2: MARGIN.left, y1: MARGIN.top, y2: MARGIN.top + plotH }),
      yTicks.map((t) =>
        svg(
          'g',
          {},
          svg('line', { x1: MARGIN.left - 5, x2: MARGIN.left, y1: y(t), y2: y(t) }),
          svg(
            'text',
            { x: MARGIN.left - 8, y: y(t), 'text-anchor': 'end', 'dominant-baseline': 'middle' },
            String(t),
          ),
        ),
      ),
      svg(
        'text',
        {
          class: 'axis-label',
          transform: `translate(14 ${MARGIN.top + plotH / 2}) rotate(-90)`,
          'text-anchor': 'middle',
        },
        'Elo',
      ),
    ),
    svg(
      'g',
      { class: 'axis x' },
      svg('line', { x1: MARGIN.left, x2: W - MARGIN.right, y1: MARGIN.top + plotH, y2: MARGIN.top + plotH }),
      xTicks.map((i) =>
        svg(
          'g',
          {},
          svg('line', { x1: x(i), x2: x(i), y1: MARGIN.top + plotH, y2: MARGIN.top + plotH + 5 }),
          svg('text', { x: x(i), y: MARGIN.top + plotH + 18, 'text-anchor': 'middle' }, String(i)),
        ),
      ),
      svg(
        'text',
        { class: 'axis-label', x: MARGIN.left + plotW / 2, y: H - 6, 'text-anchor': 'middle' },
        'Rated games played',
      ),
    ),
    svg('path', { class: 'line', d: path }),
    svg(
      'g',
      { class: 'points' },
      svg(
        'circle',
        { class: 'pt start', cx: x(0), cy: y(first), r: radius },
        svg('title', {}, `Before the first game: ${formatRating(first)}`),
      ),
      items.map((item, i) =>
        svg(
          'circle',
          { class: `pt ${RESULT[item.score] ?? 'draw'}`, cx: x(i + 1), cy: y(item.after), r: radius },
          svg(
            'title',
            {},
            `Game ${i + 1} vs ${item.opponent.name}: ${RESULT[item.score] ?? item.score}, ` +
              `${formatRating(item.before)} → ${formatRating(item.after)} (${formatDateTime(item.at)})`,
          ),
        ),
      ),
    ),
  );
}
