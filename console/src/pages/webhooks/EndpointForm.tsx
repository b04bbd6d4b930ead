// An endpoint's URL, description, event types (from the catalogue) and whether it is enabled: the form
// that creates one and the one that edits one. A refusal's issues show beside their fields, in the
// API's words; what no field shows, under the form.
import { type FormEvent, useId, useState } from 'react';
import { Failure } from '../../components/Failure.tsx';
import {
  type EndpointBody,
  endpointBodyOf,
  type EndpointForm as Form,
  fieldErrorsOf,
  fieldSentence,
} from './webhook-rules.ts';

export interface EndpointFormProps {
  initial: Form;
  /** The event types an endpoint may take, with their descriptions (the catalogue without `ping`). */
  catalogue: readonly { type: string; description: string }[];
  submitLabel: string;
  pending: boolean;
  /** The write's failure, if it failed. */
  error: unknown;
  onSubmit: (body: EndpointBody) => void;
  onCancel?: () => void;
}

export function EndpointForm(props: EndpointFormProps) {
  const { catalogue, submitLabel, pending, error, onSubmit, onCancel } = props;
  const [form, setForm] = useState<Form>(props.initial);
  const id = useId();
  const errors = fieldErrorsOf(error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(
      endpointBodyOf(
        form,
        catalogue.map((e) => e.type),
      ),
    );
  };
  const toggle = (type: string, on: boolean) =>
    setForm((f) => ({ ...f, events: on ? [...f.events, type] : f.events.filter((t) => t !== type) }));
  return (
    <form className="webhook-form" onSubmit={submit} noValidate>
      <label htmlFor={`${id}-url`}>URL</label>
      <input
        id={`${id}-url`}
        type="url"
        required
        value={form.url}
        placeholder="https://hooks.example.com/platform"
        aria-invalid={errors.url ? true : undefined}
        aria-describedby={errors.url ? `${id}-url-error` : undefined}
        onChange={(e) => setForm((f) => ({ ...f, url: e.target.value }))}
      />
      {errors.url ? (
        <p id={`${id}-url-error`} className="field-error">
          {fieldSentence('The URL', errors.url)}
        </p>
      ) : null}
      <label htmlFor={`${id}-description`}>Description (optional)</label>
      <input
        id={`${id}-description`}
        value={form.description}
        aria-invalid={errors.description ? true : undefined}
        aria-describedby={errors.description ? `${id}-description-error` : undefined}
        onChange={(e) => setForm((f) => ({ ...f, description: e.target.value }))}
      />
      {errors.description ? (
        <p id={`${id}-description-error`} className="field-error">
          {fieldSentence('The description', errors.description)}
        </p>
      ) : null}
      <fieldset
        className="webhook-events"
        aria-describedby={errors.events ? `${id}-events-error` : undefined}
      >
        <legend>Events to send</legend>
        {catalogue.map((event) => (
          <label key={event.type}>
            <input
              type="checkbox"
              checked={form.events.includes(event.type)}
              onChange={(e) => toggle(event.type, e.target.checked)}
            />
            <code>{event.type}</code> <span className="meta">{event.description}</span>
          </label>
        ))}
      </fieldset>
      {errors.events ? (
        <p id={`${id}-events-error`} className="field-error">
          {fieldSentence('Events', errors.events)}
        </p>
      ) : null}
      <label className="webhook-check">
        <input
          type="checkbox"
          checked={form.enabled}
          onChange={(e) => setForm((f) => ({ ...f, enabled: e.target.checked }))}
        />
        Enabled (a disabled endpoint is sent nothing; its deliveries wait)
      </label>
      {error ? <Failure error={error} title="Not saved." /> : null}
      {errors.other.length > 0 ? (
        <ul className="field-error">
          {errors.other.map((text) => (
            <li key={text}>{text}</li>
          ))}
        </ul>
      ) : null}
      <div className="webhook-actions">
        <button type="submit" disabled={pending}>
          {submitLabel}
        </button>
        {onCancel ? (
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
