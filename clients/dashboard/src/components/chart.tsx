import { useEffect, useRef, useState } from 'preact/hooks';

export interface ChartSeries {
  label: string;
  data: number[];
}

export interface ChartProps {
  /** The figure's caption; also the canvas's accessible name. */
  title: string;
  type: 'bar' | 'line' | 'doughnut';
  /** The x axis (or the slices). */
  labels: string[];
  series: ChartSeries[];
  /** How a value shows in the tooltip, the axis and the table (default: as is). */
  format?: (value: number) => string;
  /** Bars stacked on one another. */
  stacked?: boolean;
}

/** Colours that keep 3:1 against white and apart from one another for the common colour blindnesses. */
const PALETTE = ['#1f5fa8', '#c2570c', '#1b7f4d', '#7b3fa0', '#a61b3a', '#52606d'];

type ChartInstance = { destroy: () => void };

/**
 * A Chart.js chart in a <figure>, with its data in a table beside it for screen readers (the canvas
 * is an image to them, labelled by the caption). Chart.js is loaded when the first chart is drawn.
 */
export function ChartFigure(props: ChartProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [failed, setFailed] = useState(false);
  const fmt = props.format ?? ((v: number) => String(v));
  useEffect(() => {
    let chart: ChartInstance | null = null;
    let live = true;
    import('./chart-setup').then(
      ({ Chart }) => {
        if (!live || !canvas.current) return;
        chart = new Chart(canvas.current, config(props, fmt));
      },
      () => live && setFailed(true),
    );
    return () => {
      live = false;
      chart?.destroy();
    };
    // The chart is drawn again when its data changes (compared as JSON: the arrays are new at every render).
  }, [props.type, JSON.stringify(props.labels), JSON.stringify(props.series), props.stacked]);
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <div class="chart-box">
        <canvas ref={canvas} role="img" aria-label={`${props.title} (chart; the same figures are in the table that follows)`} />
      </div>
      {failed ? <p class="note note-error">The chart could not be drawn; the figures are in the table.</p> : null}
      <DataTable {...props} format={fmt} />
    </figure>
  );
}

function config(props: ChartProps, fmt: (v: number) => string) {
  const round = props.type === 'doughnut';
  return {
    type: props.type,
    data: {
      labels: props.labels,
      datasets: props.series.map((s, i) => ({
        label: s.label,
        data: s.data,
        backgroundColor: round ? props.labels.map((_, j) => PALETTE[j % PALETTE.length]!) : PALETTE[i % PALETTE.length]!,
        borderColor: round ? '#ffffff' : PALETTE[i % PALETTE.length]!,
        fill: false,
      })),
    },
    options: {
      responsive: true,
      maintainAspectRatio: false,
      plugins: {
        legend: { display: props.series.length > 1 || round },
        tooltip: { callbacks: { label: (c: { dataset: { label?: string }; raw: unknown }) => `${c.dataset.label ?? ''}: ${fmt(Number(c.raw))}` } },
      },
      ...(round
        ? {}
        : {
            scales: {
              x: { stacked: props.stacked ?? false },
              y: { stacked: props.stacked ?? false, ticks: { callback: (v: number | string) => fmt(Number(v)) } },
            },
          }),
    },
  } as never;
}

/** The chart's figures as a table, visible to screen readers only. */
function DataTable(props: ChartProps & { format: (v: number) => string }) {
  return (
    <table class="visually-hidden">
      <caption>{props.title}</caption>
      <thead>
        <tr>
          <th scope="col">Label</th>
          {props.series.map((s) => (
            <th scope="col" key={s.label}>
              {s.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.labels.map((label, i) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            {props.series.map((s) => (
              <td key={s.label}>{props.format(s.data[i] ?? 0)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
