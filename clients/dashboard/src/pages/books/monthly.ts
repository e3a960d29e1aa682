import { api } from '../../api/client';
import type { MonthPeriod } from './shaping';
import type { SummaryReport } from './types';

/**
 * Revenue month by month: the summary report asked once per month, all at once (the API has no
 * monthly series; twelve small reads of reporting's projection).
 */
export async function monthlyRevenue(months: readonly MonthPeriod[]): Promise<{ labels: string[]; revenue: number[] }> {
  const answers = await Promise.all(months.map((m) => api.get<{ data: SummaryReport }>('/v1/reports/summary', { from: m.from, to: m.to })));
  return { labels: months.map((m) => m.label), revenue: answers.map((a) => a.data.revenue_cents) };
}
