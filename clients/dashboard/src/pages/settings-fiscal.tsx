import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client';
import { ErrorNote, Loading, Notice } from '../components/ui';
import { useAction, useLoad } from '../hooks';
import { MONTH_NAMES } from './books/statements';

interface FiscalYear {
  fiscal_year_start_month: number;
}

/**
 * The month the fiscal year starts (GET/PUT /settings/fiscal-year, API-DECISIONS §14): it dates the
 * balance sheet's retained earnings and the statements' quarters and years. Only roles that may
 * write settings (owners, developers: the server decides) are offered the save button.
 */
export function FiscalYearSetting({ writable }: { writable: boolean }) {
  const current = useLoad(() => api.get<{ data: FiscalYear }>('/v1/settings/fiscal-year'), []);
  const [month, setMonth] = useState(1);
  const [done, setDone] = useState<string | null>(null);
  const action = useAction();
  useEffect(() => setMonth(current.data?.data.fiscal_year_start_month ?? 1), [current.data]);
  const save = () =>
    void action.run(async () => {
      await api.put('/v1/settings/fiscal-year', { fiscal_year_start_month: month });
      setDone(`The fiscal year now starts on 1 ${MONTH_NAMES[month - 1] ?? ''}.`);
      current.reload();
    });
  return (
    <section aria-labelledby="fiscal-title">
      <h2 id="fiscal-title">Fiscal year</h2>
      <p>The month the fiscal year starts: the balance sheet’s retained earnings and the statements’ quarters and years follow it.</p>
      {current.loading && !current.data ? <Loading what="the fiscal year" /> : null}
      <ErrorNote error={current.error} />
      <form
        class="panel"
        onSubmit={(e) => {
          e.preventDefault();
          save();
        }}
      >
        <div class="field">
          <label for="fiscal-month">Fiscal year starts in</label>
          <select id="fiscal-month" value={String(month)} disabled={!writable || !current.data} onChange={(e) => setMonth(Number(e.currentTarget.value))}>
            {MONTH_NAMES.map((name, i) => (
              <option value={String(i + 1)} key={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <ErrorNote error={action.error} />
        {done ? <Notice>{done}</Notice> : null}
        {writable ? (
          <div class="buttons">
            <button type="submit" disabled={action.busy || !current.data}>
              Save the fiscal year
            </button>
          </div>
        ) : (
          <p class="hint">Your role cannot change the fiscal year.</p>
        )}
      </form>
    </section>
  );
}
