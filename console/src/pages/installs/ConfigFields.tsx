// The controls of a config form described by config-form.ts: one labelled control per field, its help,
// its default, and the platform's issues beside it (aria-describedby, aria-invalid). A field whose text
// does not parse (a number, JSON) says so at once and reports itself, so the form is not sent.
import { useId, useState } from 'react';
import { type Field, fieldText, type Json, parseFieldText, valueAt, withValueAt } from './config-form.ts';

export interface ConfigFieldsProps {
  fields: readonly Field[];
  config: Json;
  onChange: (config: Json) => void;
  /** The platform's issues by field pointer (placeIssues). */
  issues: ReadonlyMap<string, string[]>;
  /** A field's text that does not parse (a message), or null once it does. */
  onInvalid: (pointer: string, message: string | null) => void;
}

export function ConfigFields({ fields, config, onChange, issues, onInvalid }: ConfigFieldsProps) {
  const shared = { fields, config, onChange, issues, onInvalid };
  return (
    <>
      {fields.map((field) => (
        <FieldControl key={field.pointer} {...shared} field={field} />
      ))}
    </>
  );
}

type ControlProps = ConfigFieldsProps & { field: Field };

function FieldControl(props: ControlProps) {
  const { field, config, onChange } = props;
  const set = (value: Json | undefined) => onChange(withValueAt(config, field.pointer, value) ?? {});
  switch (field.kind) {
    case 'group':
      return (
        <fieldset className="config-group">
          <legend>
            {field.label}
            {field.required ? <Required /> : null}
          </legend>
          {field.description ? <p className="hint">{field.description}</p> : null}
          <ConfigFields
            fields={field.fields}
            config={config}
            onChange={onChange}
            issues={props.issues}
            onInvalid={props.onInvalid}
          />
          <Issues messages={props.issues.get(field.pointer)} />
        </fieldset>
      );
    case 'boolean':
      return <BooleanControl {...props} set={set} />;
    case 'choice':
      return <ChoiceControl {...props} set={set} />;
    case 'choices':
      return <ChoicesControl {...props} set={set} />;
    default:
      return <TextControl {...props} set={set} />;
  }
}

type SetProps = ControlProps & { set: (value: Json | undefined) => void };

const Required = () => <span className="required"> (required)</span>;

function Issues({ messages, id }: { messages: string[] | undefined; id?: string }) {
  if (!messages?.length) return null;
  return (
    <ul className="field-issues" id={id}>
      {messages.map((message) => (
        <li key={message}>{message}</li>
      ))}
    </ul>
  );
}

/** Label, help, default and issues around one control; the ids the control names. */
function FieldFrame({
  field,
  issues,
  local,
  children,
}: {
  field: Field;
  issues: string[] | undefined;
  local?: string | null;
  children: (ids: { id: string; describedBy: string | undefined; invalid: boolean }) => React.ReactNode;
}) {
  const id = useId();
  const all = [...(local ? [local] : []), ...(issues ?? [])];
  const described = [field.description ? `${id}-help` : '', all.length ? `${id}-issues` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>
        {field.label}
        {field.required ? <Required /> : null}
      </label>
      {children({ id, describedBy: described || undefined, invalid: all.length > 0 })}
      {field.description ? (
        <p className="hint" id={`${id}-help`}>
          {field.description}
          {field.defaultValue !== undefined ? ` Default: ${JSON.stringify(field.defaultValue)}.` : ''}
        </p>
      ) : field.defaultValue !== undefined ? (
        <p className="hint">Default: {JSON.stringify(field.defaultValue)}.</p>
      ) : null}
      <Issues messages={all} id={`${id}-issues`} />
    </div>
  );
}

function TextControl({ field, config, set, issues, onInvalid }: SetProps) {
  const [text, setText] = useState(() => fieldText(field, valueAt(config, field.pointer)));
  const [local, setLocal] = useState<string | null>(null);
  const change = (next: string) => {
    setText(next);
    const parsed = parseFieldText(field, next);
    if ('invalid' in parsed) {
      setLocal(parsed.invalid);
      onInvalid(field.pointer, parsed.invalid);
      return;
    }
    setLocal(null);
    onInvalid(field.pointer, null);
    set(parsed.value);
  };
  const multiline = field.kind === 'json' || field.kind === 'list';
  return (
    <FieldFrame field={field} issues={issues.get(field.pointer)} local={local}>
      {({ id, describedBy, invalid }) =>
        multiline ? (
          <textarea
            id={id}
            className={field.kind === 'json' ? 'json' : undefined}
            rows={field.kind === 'json' ? 6 : 3}
            value={text}
            spellCheck={false}
            aria-describedby={describedBy}
            aria-invalid={invalid || undefined}
            aria-required={field.required || undefined}
            onChange={(event) => change(event.target.value)}
          />
        ) : (
          <input
            id={id}
            type="text"
            inputMode={field.kind === 'number' ? (field.integer ? 'numeric' : 'decimal') : undefined}
            value={text}
            spellCheck={false}
            aria-describedby={describedBy}
            aria-invalid={invalid || undefined}
            aria-required={field.required || undefined}
            onChange={(event) => change(event.target.value)}
          />
        )
      }
    </FieldFrame>
  );
}

function BooleanControl({ field, config, set, issues }: SetProps) {
  const value = valueAt(config, field.pointer);
  const checked = value === undefined ? field.defaultValue === true : value === true;
  return (
    <FieldFrame field={field} issues={issues.get(field.pointer)}>
      {({ id, describedBy, invalid }) => (
        <input
          id={id}
          type="checkbox"
          checked={checked}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          onChange={(event) => set(event.target.checked)}
        />
      )}
    </FieldFrame>
  );
}

function ChoiceControl({ field, config, set, issues }: SetProps) {
  if (field.kind !== 'choice') return null;
  const value = valueAt(config, field.pointer);
  const index = field.options.findIndex((option) => JSON.stringify(option) === JSON.stringify(value));
  return (
    <FieldFrame field={field} issues={issues.get(field.pointer)}>
      {({ id, describedBy, invalid }) => (
        <select
          id={id}
          value={index < 0 ? '' : String(index)}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          aria-required={field.required || undefined}
          onChange={(event) =>
            set(event.target.value === '' ? undefined : field.options[Number(event.target.value)])
          }
        >
          <option value="">(not set)</option>
          {field.options.map((option, i) => (
            <option key={JSON.stringify(option)} value={String(i)}>
              {typeof option === 'string' ? option : JSON.stringify(option)}
            </option>
          ))}
        </select>
      )}
    </FieldFrame>
  );
}

function ChoicesControl({ field, config, set, issues }: SetProps) {
  if (field.kind !== 'choices') return null;
  const value = valueAt(config, field.pointer);
  const chosen = Array.isArray(value) ? value : [];
  const has = (option: Json) => chosen.some((c) => JSON.stringify(c) === JSON.stringify(option));
  const toggle = (option: Json, on: boolean) => {
    const next = field.options.filter((o) => (o === option ? on : has(o)));
    set(next.length ? next : undefined);
  };
  return (
    <fieldset className="config-group">
      <legend>
        {field.label}
        {field.required ? <Required /> : null}
      </legend>
      {field.description ? <p className="hint">{field.description}</p> : null}
      {field.options.map((option) => (
        <label key={JSON.stringify(option)} className="inline">
          <input
            type="checkbox"
            checked={has(option)}
            onChange={(event) => toggle(option, event.target.checked)}
          />
          {typeof option === 'string' ? option : JSON.stringify(option)}
        </label>
      ))}
      <Issues messages={issues.get(field.pointer)} />
    </fieldset>
  );
}
