/**
 * Line charts as SVG, written by hand (no plotting dependency): panels side by side, each with
 * a logarithmic x axis (connections: 1, 4, 16, ...) and a linear y axis from 0.
 */

export interface Series {
  name: string;
  color: string;
  /** Dashed: a baseline or a peer, not Roost itself. */
  dashed?: boolean;
  points: ReadonlyArray<readonly [x: number, y: number]>;
}

export interface Panel {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly Series[];
}

const WIDTH = 460;
const HEIGHT = 320;
const MARGIN = { left: 70, right: 20, top: 36, bottom: 96 };

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A round step for about five gridlines up to `max`. */
function niceStep(max: number): number {
  const raw = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw);
  return step ?? 10 * magnitude;
}

const formatTick = (value: number) => (value >= 1000 ? `${value / 1000}k` : String(value));

function panelSvg(panel: Panel, offsetX: number): string {
  const xs = [...new Set(panel.series.flatMap((s) => s.points.map(([x]) => x)))].sort((a, b) => a - b);
  const maxY = Math.max(1, ...panel.series.flatMap((s) => s.points.map(([, y]) => y)));
  const step = niceStep(maxY);
  const top = Math.ceil(maxY / step) * step;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const [minX, maxX] = [Math.log2(xs[0] ?? 1), Math.log2(xs.at(-1) ?? 2)];
  const px = (x: number) => MARGIN.left + ((Math.log2(x) - minX) / Math.max(1, maxX - minX)) * plotW;
  const py = (y: number) => MARGIN.top + plotH - (y / top) * plotH;
  const out: string[] = [`<g transform="translate(${offsetX},0)">`];
  out.push(
    `<text x="${MARGIN.left + plotW / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">` +
      `${escapeXml(panel.title)}</text>`,
  );
  for (let y = 0; y <= top; y += step) {
    out.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${py(y)}" y2="${py(y)}" stroke="#ddd"/>`);
    out.push(`<text x="${MARGIN.left - 6}" y="${py(y) + 4}" text-anchor="end" font-size="11">${formatTick(y)}</text>`);
  }
  for (const x of xs) {
    out.push(`<line x1="${px(x)}" x2="${px(x)}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="#eee"/>`);
    out.push(`<text x="${px(x)}" y="${MARGIN.top + plotH + 16}" text-anchor="middle" font-size="11">${x}</text>`);
  }
  out.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#888"/>`);
  out.push(
    `<text x="${MARGIN.left + plotW / 2}" y="${MARGIN.top + plotH + 34}" text-anchor="middle" font-size="12">` +
      `${escapeXml(panel.xLabel)}</text>`,
  );
  out.push(
    `<text transform="translate(16,${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle" font-size="12">` +
      `${escapeXml(panel.yLabel)}</text>`,
  );
  for (const s of panel.series) {
    const path = s.points.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ');
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    out.push(`<path d="${path}" fill="none" stroke="${s.color}" stroke-width="2"${dash}/>`);
    for (const [x, y] of s.points)
      out.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3" fill="${s.color}"/>`);
  }
  panel.series.forEach((s, i) => {
    const y = MARGIN.top + plotH + 52 + Math.floor(i / 2) * 16;
    const x = MARGIN.left + (i % 2) * (plotW / 2);
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    out.push(
      `<line x1="${x}" x2="${x + 22}" y1="${y - 4}" y2="${y - 4}" stroke="${s.color}" stroke-width="2"${dash}/>`,
    );
    out.push(`<text x="${x + 28}" y="${y}" font-size="11">${escapeXml(s.name)}</text>`);
  });
  out.push('</g>');
  return out.join('\n');
}

/** An SVG document of the panels side by side, with a caption line under them. */
export function plotSvg(panels: readonly Panel[], caption: string): string {
  const width = WIDTH * panels.length;
  const height = HEIGHT + 24;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
      'font-family="sans-serif">',
    `<rect width="${width}" height="${height}" fill="white"/>`,
    ...panels.map((panel, i) => panelSvg(panel, i * WIDTH)),
    `<text x="${width / 2}" y="${height - 10}" text-anchor="middle" font-size="11" fill="#555">` +
      `${escapeXml(caption)}</text>`,
    '</svg>',
    '',
  ].join('\n');
}
