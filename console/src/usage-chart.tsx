/**
 * A bar per day, drawn as SVG by hand: a chart library would be most of the console's script
 * budget for one chart. Cost is the bar; the requests are in each bar's title and in the table
 * beside it, which is also what a screen reader gets.
 */
import { formatCount, formatUsd } from './console-format';
import { ScrollBox } from './form-fields';

export interface ChartBar {
  readonly label: string;
  readonly cost: number;
  readonly requests: number;
}

const WIDTH = 640;
const HEIGHT = 200;
const AXIS = 24;

export function UsageChart({ bars }: { bars: readonly ChartBar[] }) {
  if (bars.length === 0) return <p>No days in this range.</p>;
  const byCost = bars.some((bar) => bar.cost > 0);
  const value = (bar: ChartBar) => (byCost ? bar.cost : bar.requests);
  const top = Math.max(...bars.map(value), byCost ? 0.000001 : 1);
  const slot = WIDTH / bars.length;
  return (
    <figure class="chart" data-testid="usage-chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT + AXIS}`} role="img" aria-labelledby="chart-caption">
        <line x1={0} y1={HEIGHT} x2={WIDTH} y2={HEIGHT} class="axis" />
        {bars.map((bar, index) => {
          const height = (value(bar) / top) * (HEIGHT - 8);
          return (
            <g key={bar.label}>
              <rect
                x={index * slot + slot * 0.15}
                y={HEIGHT - height}
                width={slot * 0.7}
                height={Math.max(height, value(bar) > 0 ? 1 : 0)}
                class="bar"
              >
                <title>{`${bar.label}: ${formatUsd(bar.cost)}, ${formatCount(bar.requests)} requests`}</title>
              </rect>
              {(bars.length <= 10 || index % Math.ceil(bars.length / 10) === 0) && (
                <text x={index * slot + slot / 2} y={HEIGHT + 16} class="tick">
                  {bar.label}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption id="chart-caption">
        {byCost ? 'Estimated cost' : 'Requests'} per {bars.length > 1 && bars[0]!.label.includes('–') ? 'span' : 'day'},
        highest {byCost ? formatUsd(top) : formatCount(top)}.
      </figcaption>
      <details>
        <summary>The figures as a table</summary>
        <ScrollBox label="Table of the days">
          <table>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col" class="number">
                  Requests
                </th>
                <th scope="col" class="number">
                  Cost
                </th>
              </tr>
            </thead>
            <tbody>
              {bars.map((bar) => (
                <tr key={bar.label}>
                  <th scope="row">{bar.label}</th>
                  <td class="number">{formatCount(bar.requests)}</td>
                  <td class="number">{formatUsd(bar.cost)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      </details>
    </figure>
  );
}
