// The deliveries list's filters: endpoint, statuses, event type and a creation window, applied to the URL
// (so a filtered list is a link) and back to the first page.
import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useEndpoints, useEventCatalogue } from './queries.ts';
import {
  DELIVERY_STATUSES,
  type DeliveryFilter,
  type DeliveryStatus,
  instantOfLocalInput,
  localInputOf,
  withDeliveryFilter,
} from './webhook-rules.ts';

interface Fields {
  endpointId: string;
  status: DeliveryStatus[];
  event: string;
  from: string;
  to: string;
}

const fieldsOf = (filter: DeliveryFilter): Fields => ({
  endpointId: filter.endpointId ?? '',
  status: filter.status,
  event: filter.event ?? '',
  from: localInputOf(filter.from),
  to: localInputOf(filter.to),
});

export function DeliveryFilters({ filter }: { filter: DeliveryFilter }) {
  const [params, setParams] = useSearchParams();
  const [fields, setFields] = useState<Fields>(() => fieldsOf(filter));
  const endpoints = useEndpoints();
  const catalogue = useEventCatalogue();
  const apply = (event: FormEvent) => {
    event.preventDefault();
    const next = withDeliveryFilter(params, {
      status: fields.status,
      endpointId: fields.endpointId || undefined,
      event: fields.event || undefined,
      from: instantOfLocalInput(fields.from),
      to: instantOfLocalInput(fields.to),
    });
    next.delete('delivery');
    setParams(next);
  };
  const toggle = (status: DeliveryStatus, on: boolean) =>
    setFields((f) => ({
      ...f,
      status: on ? [...f.status, status] : f.status.filter((s) => s !== status),
    }));
  return (
    <form className="webhook-filters" onSubmit={apply} aria-label="Filter deliveries">
      <label>
        Endpoint
        <select
          value={fields.endpointId}
          onChange={(e) => setFields((f) => ({ ...f, endpointId: e.target.value }))}
        >
          <option value="">Any endpoint</option>
          {(endpoints.data?.items ?? []).map((e) => (
            <option key={e.id} value={e.id}>
              {e.description ? `${e.description} (${e.url})` : e.url}
            </option>
          ))}
          {fields.endpointId && !endpoints.data?.items.some((e) => e.id === fields.endpointId) ? (
            <option value={fields.endpointId}>{fields.endpointId}</option>
          ) : null}
        </select>
      </label>
      <label>
        Event
        <select value={fields.event} onChange={(e) => setFields((f) => ({ ...f, event: e.target.value }))}>
          <option value="">Any event</option>
          {(catalogue.data?.items ?? [])
            .filter((e) => e.type !== 'ping')
            .map((e) => (
              <option key={e.type} value={e.type}>
                {e.type}
              </option>
            ))}
        </select>
      </label>
      <fieldset className="webhook-statuses">
        <legend>Status</legend>
        {DELIVERY_STATUSES.map((status) => (
          <label key={status}>
            <input
              type="checkbox"
              checked={fields.status.includes(status)}
              onChange={(e) => toggle(status, e.target.checked)}
            />
            {status}
          </label>
        ))}
      </fieldset>
      <label>
        Created from
        <input
          type="datetime-local"
          value={fields.from}
          onChange={(e) => setFields((f) => ({ ...f, from: e.target.value }))}
        />
      </label>
      <label>
        Created before
        <input
          type="datetime-local"
          value={fields.to}
          onChange={(e) => setFields((f) => ({ ...f, to: e.target.value }))}
        />
      </label>
      <div className="webhook-actions">
        <button type="submit">Apply filters</button>
        <Link to={{ search: '' }}>Clear filters</Link>
      </div>
    </form>
  );
}
