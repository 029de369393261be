// A small SVG chart of a stock level over time, drawn as steps (stock changes at moments,
// it does not slide between them). Built from nodes; styled by console.css classes only.

import { s } from './dom.js';
import { day, moment, quantity, time } from './format.js';

const TWO_DAYS = 2 * 24 * 60 * 60 * 1000;
const HEIGHT = 180;
const PAD = { left: 56, right: 16, top: 14, bottom: 30 };

const iso = (at) => new Date(at).toISOString();

/**
 * @param {{at: number, level: number}[]} steps the level from each moment on, oldest first
 *   (the first is the level before the first entry shown)
 * @param {{label: string, width: number}} options width in CSS pixels: the chart is drawn at
 *   the size it is shown, so its labels stay readable on a handheld and a desktop alike
 *
 * The time axis runs from the first to the last entry shown. Entries recorded in one burst
 * (an import, a seeded demo) share a moment; the axis then spaces them evenly instead, so
 * the shape of the history still shows.
 */
export function stockLevelChart(steps, { label, width }) {
  const chartWidth = Math.round(Math.min(2000, Math.max(280, width)));
  const levels = steps.map((step) => step.level);
  const low = Math.min(0, ...levels);
  const high = Math.max(low + 1, ...levels);
  const start = steps[0].at;
  const end = steps[steps.length - 1].at;
  const byTime = end > start;
  const plotWidth = chartWidth - PAD.left - PAD.right;
  const x = (step, index) =>
    PAD.left + (byTime ? (step.at - start) / (end - start) : index / Math.max(1, steps.length - 1)) * plotWidth;
  const y = (level) => PAD.top + ((high - level) / (high - low)) * (HEIGHT - PAD.top - PAD.bottom);

  let line = `M ${x(steps[0], 0).toFixed(1)} ${y(steps[0].level).toFixed(1)}`;
  steps.slice(1).forEach((step, i) => (line += ` H ${x(step, i + 1).toFixed(1)} V ${y(step.level).toFixed(1)}`));

  // Days label a long history; a short one gives its start and the time it ends (short
  // enough for both to fit a handheld's width).
  const short = end - start < TWO_DAYS;
  const startLabel = (short ? moment : day)(iso(start));
  const endLabel = (short ? time : day)(iso(end));
  const description =
    `From ${moment(iso(start))} to ${moment(iso(end))}: lowest ${quantity(Math.min(...levels))}, ` +
    `highest ${quantity(Math.max(...levels))}, now ${quantity(levels[levels.length - 1])}.`;

  return s(
    'svg',
    {
      class: 'chart',
      viewBox: `0 0 ${chartWidth} ${HEIGHT}`,
      role: 'img',
      'aria-labelledby': 'chart-title chart-desc',
    },
    s('title', { id: 'chart-title' }, label),
    s('desc', { id: 'chart-desc' }, description),
    [...new Set([high, 0, low])].map((level) => [
      s('line', {
        class: level === 0 ? 'chart-zero' : 'chart-grid',
        x1: PAD.left,
        x2: chartWidth - PAD.right,
        y1: y(level),
        y2: y(level),
      }),
      s('text', { class: 'chart-label', x: PAD.left - 6, y: y(level) + 4, 'text-anchor': 'end' }, quantity(level)),
    ]),
    s('text', { class: 'chart-label', x: PAD.left, y: HEIGHT - 8, 'text-anchor': 'start' }, startLabel),
    byTime
      ? s('text', { class: 'chart-label', x: chartWidth - PAD.right, y: HEIGHT - 8, 'text-anchor': 'end' }, endLabel)
      : null,
    s('path', { class: 'chart-line', d: line }),
    steps.map((step, index) =>
      s(
        'circle',
        { class: 'chart-point', cx: x(step, index), cy: y(step.level), r: 3 },
        s('title', {}, `${moment(iso(step.at))}: ${quantity(step.level)}`),
      ),
    ),
  );
}
