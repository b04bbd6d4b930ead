// A bar chart drawn by Chart.js on a canvas. Chart.js evaluates no code and injects no <style>: it sets
// the canvas's size through the DOM's style properties, which the CSP allows (only style attributes in
// markup and inline <style> are refused). It loads with the usage page, never with the first page. The
// canvas is an image whose label reads the chart's numbers; the page shows them as a table too.
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { useEffect, useRef } from 'react';
import { chartSummary } from './usage-rules.ts';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

/** Colours told apart by people with the commoner colour-vision deficiencies (Okabe–Ito). */
const COLOURS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7'];

export interface Series {
  label: string;
  values: readonly number[];
}

export function BarChart({
  title,
  labels,
  series,
}: {
  title: string;
  labels: readonly string[];
  series: readonly Series[];
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  // Drawn again only when the numbers change, not at every render of the page.
  const drawn = JSON.stringify({ labels, series });
  useEffect(() => {
    if (!canvas.current) return;
    const { labels, series } = JSON.parse(drawn) as { labels: string[]; series: Series[] };
    const chart = new Chart(canvas.current, {
      type: 'bar',
      data: {
        labels: [...labels],
        datasets: series.map((s, i) => ({
          label: s.label,
          data: [...s.values],
          backgroundColor: COLOURS[i % COLOURS.length],
        })),
      },
      options: {
        // Drawn at once: nothing moves, and a screenshot shows the chart as it is.
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { y: { beginAtZero: true, ticks: { precision: 0 } } },
      },
    });
    return () => chart.destroy();
  }, [drawn]);
  return (
    <div className="chart">
      <canvas ref={canvas} role="img" aria-label={chartSummary(title, labels, series)} />
    </div>
  );
}
