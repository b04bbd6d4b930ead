// The install's limits record (GET/PUT …/limits, apps:write: it shows prices): a currency, a price per
// action in micros of it, and up to six budgets (calls, HTTP requests or spend, per day or month). A save
// replaces the whole record; the platform's issues show beside their fields.
import { useId, useState } from 'react';
import { ApiFailure } from '../../api/errors.ts';
import { Failure } from '../../components/Failure.tsx';
import { Loading } from '../../components/Loading.tsx';
import { type InstallView, issuesOf } from './install-rules.ts';
import { type LimitsBody, useLimits, useSaveLimits } from './queries.ts';

type BudgetRow = LimitsBody['budgets'][number];
const METRICS: BudgetRow['metric'][] = ['calls', 'http_requests', 'spend'];
const PERIODS: BudgetRow['period'][] = ['day', 'month'];
const MAX_BUDGETS = 6;

export function LimitsSection({ install }: { install: InstallView }) {
  const limits = useLimits(install.name, true);
  return (
    <section aria-labelledby="limits-title" className="panel">
      <h2 id="limits-title">Limits and budgets</h2>
      {limits.isPending ? <Loading what="limits" /> : null}
      {limits.isError ? <Failure error={limits.error} /> : null}
      {limits.data ? <LimitsForm install={install} saved={limits.data} /> : null}
    </section>
  );
}

function LimitsForm({ install, saved }: { install: InstallView; saved: LimitsBody }) {
  const id = useId();
  const [currency, setCurrency] = useState(saved.currency ?? '');
  const [prices, setPrices] = useState<Record<string, string>>(() =>
    Object.fromEntries(Object.entries(saved.prices).map(([action, micros]) => [action, String(micros)])),
  );
  const [budgets, setBudgets] = useState<BudgetRow[]>(saved.budgets);
  const save = useSaveLimits(install.name);
  const issues = save.error instanceof ApiFailure ? issuesOf(save.error.details) : [];
  const issueAt = (path: string) =>
    issues
      .filter((i) => i.path === path)
      .map((i) => i.message)
      .join('; ');
  const setBudget = (index: number, change: Partial<BudgetRow>) =>
    setBudgets((all) => all.map((b, i) => (i === index ? { ...b, ...change } : b)));

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    const priced = Object.entries(prices).filter(([, text]) => text.trim() !== '');
    save.mutate({
      currency: currency.trim() === '' ? null : currency.trim().toUpperCase(),
      prices: Object.fromEntries(priced.map(([action, text]) => [action, Number(text)])),
      budgets,
    });
  };

  return (
    <form onSubmit={submit} noValidate>
      <Labelled
        id={`${id}-currency`}
        label="Currency (ISO 4217, e.g. EUR; empty: no charging)"
        issue={issueAt('/currency')}
      >
        {(describedBy) => (
          <input
            id={`${id}-currency`}
            value={currency}
            maxLength={3}
            aria-describedby={describedBy}
            onChange={(event) => setCurrency(event.target.value)}
          />
        )}
      </Labelled>
      <fieldset className="config-group">
        <legend>Price per call, in micros of the currency (1,000,000 = 1 unit)</legend>
        {install.version.actions.map((action) => (
          <Labelled
            key={action.name}
            id={`${id}-price-${action.name}`}
            label={action.name}
            issue={issueAt(`/prices/${action.name.replaceAll('~', '~0').replaceAll('/', '~1')}`)}
          >
            {(describedBy) => (
              <input
                id={`${id}-price-${action.name}`}
                inputMode="numeric"
                value={prices[action.name] ?? ''}
                aria-describedby={describedBy}
                onChange={(event) => setPrices((all) => ({ ...all, [action.name]: event.target.value }))}
              />
            )}
          </Labelled>
        ))}
      </fieldset>
      <fieldset className="config-group">
        <legend>Budgets</legend>
        {budgets.length === 0 ? (
          <p className="empty">No budget: calls are limited only by the tenant’s quotas.</p>
        ) : null}
        {budgets.map((budget, index) => (
          <div className="inline-form" key={`${index}-${budget.metric}-${budget.period}`}>
            <label htmlFor={`${id}-b${index}-metric`}>Budget {index + 1}: metric</label>
            <select
              id={`${id}-b${index}-metric`}
              value={budget.metric}
              onChange={(event) => setBudget(index, { metric: event.target.value as BudgetRow['metric'] })}
            >
              {METRICS.map((m) => (
                <option key={m} value={m}>
                  {m === 'http_requests' ? 'HTTP requests' : m === 'spend' ? 'spend (micros)' : m}
                </option>
              ))}
            </select>
            <label htmlFor={`${id}-b${index}-period`}>per</label>
            <select
              id={`${id}-b${index}-period`}
              value={budget.period}
              onChange={(event) => setBudget(index, { period: event.target.value as BudgetRow['period'] })}
            >
              {PERIODS.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
            <label htmlFor={`${id}-b${index}-max`}>at most</label>
            <input
              id={`${id}-b${index}-max`}
              inputMode="numeric"
              value={String(budget.max)}
              onChange={(event) => setBudget(index, { max: Number(event.target.value) })}
            />
            <button
              type="button"
              className="secondary"
              onClick={() => setBudgets((all) => all.filter((_, i) => i !== index))}
            >
              Remove budget {index + 1}
            </button>
            {issueAt(`/budgets/${index}`) ? (
              <span className="field-issue">{issueAt(`/budgets/${index}`)}</span>
            ) : null}
          </div>
        ))}
        {budgets.length < MAX_BUDGETS ? (
          <button
            type="button"
            className="secondary"
            onClick={() => setBudgets((all) => [...all, { metric: 'calls', period: 'day', max: 1000 }])}
          >
            Add a budget
          </button>
        ) : null}
      </fieldset>
      {save.isError ? <Failure error={save.error} title="The limits were not saved." /> : null}
      {save.isSuccess ? <output className="status">Limits saved.</output> : null}
      <button type="submit" disabled={save.isPending}>
        Save limits
      </button>
    </form>
  );
}

function Labelled({
  id,
  label,
  issue,
  children,
}: {
  id: string;
  label: string;
  issue: string;
  children: (describedBy: string | undefined) => React.ReactNode;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(issue ? `${id}-issue` : undefined)}
      {issue ? (
        <p className="field-issue" id={`${id}-issue`}>
          {issue}
        </p>
      ) : null}
    </div>
  );
}
