import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Filler,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  PointElement,
  Tooltip,
  DoughnutController,
  ArcElement,
} from 'chart.js';

/**
 * Only the parts of Chart.js the pages draw (bar, line, doughnut; category and linear scales;
 * tooltip and legend) are registered, so the bundle carries no other chart types: loaded on demand
 * by chart.tsx, it is not part of the first page's script unless that page has a chart.
 */
Chart.register(BarController, BarElement, LineController, LineElement, PointElement, DoughnutController, ArcElement, CategoryScale, LinearScale, Tooltip, Legend, Filler);
Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
Chart.defaults.color = '#2b3440';
// Reduced motion: no animation.
if (typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches) Chart.defaults.animation = false;

export { Chart };
