import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, type ListAnswer } from '../../api/client';
import type { Column } from '../../components/list';
import { ErrorNote, Field, PageTitle } from '../../components/ui';
import { useLoad } from '../../hooks';
import { href } from '../../paths';
import { SOURCE_ROUTES } from './entries';
import { dayCol, money, RecordLink, StaticTable } from './parts';
import { ReportForm, ReportNav, ReportState, Tiles } from './report-parts';
import { isDay, shortId, startOfYear, statusText, todayUtc } from './shaping';
import { type GeneralLedger, type LedgerLine, nextPages, previousPages } from './statements';
import type { Account } from './types';

type Line = LedgerLine & { id: string };

const LINE_COLUMNS: Column<Line>[] = [
  dayCol('Date', (l: Line) => l.entry_date),
  {
    label: 'Entry',
    value: (l) => l.entry_id,
    render: (l) => <a href={href(`/journal?source_id=${encodeURIComponent(l.source_id)}`)}>Entry {shortId(l.entry_id)}</a>,
  },
  {
    label: 'Source',
    value: (l) => `${l.source_type} ${l.source_id}`,
    render: (l) => {
      const route = SOURCE_ROUTES[l.source_type];
      const what = statusText(l.source_type);
      return route ? <RecordLink route={route} id={l.source_id} what={what} /> : `${what} ${shortId(l.source_id)}`;
    },
  },
  { label: 'Memo', value: (l) => l.memo, render: (l) => l.memo ?? '—' },
  { label: 'Debit', value: (l) => l.debit_cents / 100, render: (l) => (l.debit_cents ? money(l.debit_cents) : ''), numeric: true },
  { label: 'Credit', value: (l) => l.credit_cents / 100, render: (l) => (l.credit_cents ? money(l.credit_cents) : ''), numeric: true },
  { label: 'Balance', value: (l) => l.running_balance_cents / 100, render: (l) => money(l.running_balance_cents), numeric: true },
];

interface Query {
  account_id: string;
  from: string;
  to: string;
}

/** One account's general ledger (API-DECISIONS §14): opening balance, lines with running balance (paged), closing balance. */
export function GeneralLedgerPage() {
  const { query: url } = useLocation();
  return <Ledger key={url.account_id ?? ''} accountId={url.account_id ?? ''} />;
}

function Ledger({ accountId }: { accountId: string }) {
  const accounts = useLoad(() => api.get<ListAnswer<Account>>('/v1/accounts', { limit: 100 }), []);
  const [draft, setDraft] = useState<Query>({ account_id: accountId, from: startOfYear(), to: todayUtc() });
  const [query, setQuery] = useState(draft);
  const [pages, setPages] = useState<(string | undefined)[]>([undefined]);
  const cursor = pages[pages.length - 1];
  const loaded = useLoad(
    async () => (query.account_id ? api.get<{ data: GeneralLedger }>('/v1/reports/general-ledger', { ...query, cursor }) : null),
    [query.account_id, query.from, query.to, cursor],
  );
  const submit = () => {
    if (!draft.account_id || !isDay(draft.from) || !isDay(draft.to)) return;
    setQuery(draft);
    setPages([undefined]);
  };
  return (
    <>
      <PageTitle>Reports</PageTitle>
      <ReportNav current="general-ledger" />
      <section aria-labelledby="gl-title">
        <h2 id="gl-title">General ledger</h2>
        <ErrorNote error={accounts.error} />
        <ReportForm label="General ledger account and period" onSubmit={submit}>
          <div class="field">
            <label for="gl-account">Account</label>
            <select id="gl-account" required value={draft.account_id} onChange={(e) => setDraft({ ...draft, account_id: e.currentTarget.value })}>
              <option value="">Choose an account</option>
              {(accounts.data?.data ?? []).map((a) => (
                <option value={a.id} key={a.id}>
                  {a.code} {a.name}
                </option>
              ))}
            </select>
          </div>
          <Field label="From" id="gl-from" type="date" required value={draft.from} onInput={(e) => setDraft({ ...draft, from: e.currentTarget.value })} />
          <Field label="To" id="gl-to" type="date" required value={draft.to} onInput={(e) => setDraft({ ...draft, to: e.currentTarget.value })} />
        </ReportForm>
        {query.account_id ? null : <p class="empty">Choose an account to see its lines.</p>}
        <ReportState loaded={loaded} what="the general ledger">
          {(answer) =>
            answer ? (
              <LedgerBody
                gl={answer.data}
                page={pages.length}
                onPrevious={pages.length > 1 ? () => setPages(previousPages(pages)) : null}
                onNext={answer.data.has_more ? () => setPages(nextPages(pages, answer.data.next_cursor)) : null}
              />
            ) : null
          }
        </ReportState>
      </section>
    </>
  );
}

function LedgerBody({ gl, page, onPrevious, onNext }: { gl: GeneralLedger; page: number; onPrevious: (() => void) | null; onNext: (() => void) | null }) {
  const rows = gl.lines.map((l) => ({ ...l, id: `${l.entry_id}:${l.line_no}` }));
  const title = `General ledger of ${gl.code} ${gl.name}, ${gl.from} to ${gl.to}, page ${page}`;
  return (
    <>
      <Tiles
        items={[
          [`Opening balance on ${gl.from}`, money(gl.opening_balance_cents)],
          [`Closing balance on ${gl.to}`, money(gl.closing_balance_cents)],
          ['Normal balance', gl.normal_balance === 'debit' ? 'Debit' : 'Credit'],
        ]}
      />
      <StaticTable title={title} columns={LINE_COLUMNS} rows={rows} empty="No line in this period." />
      <nav class="pager" aria-label="General ledger pages">
        <button type="button" class="secondary" disabled={!onPrevious} onClick={() => onPrevious?.()}>
          Previous
        </button>
        <span>Page {page}</span>
        <button type="button" class="secondary" disabled={!onNext} onClick={() => onNext?.()}>
          Next
        </button>
      </nav>
    </>
  );
}
