// The decide buttons of a request waiting for someone (a publish request, a definition's approval, an
// install change): an optional comment and one button per decision, named after what they decide. The
// refusal of a decision (four-eyes, already decided…) shows beneath as the catalogue's sentence.
import { type FormEvent, useId, useState } from 'react';
import { Failure } from '../../components/Failure.tsx';

export interface Choice<D extends string> {
  decision: D;
  label: string;
  /** The button drawn as a secondary action (reject, withdraw). */
  secondary?: boolean;
}

export interface DecisionFormProps<D extends string> {
  /** What is decided, for the controls' accessible names: "kyc-check 1.0.0". */
  what: string;
  choices: Choice<D>[];
  /** Offer a comment field (kept with the decision). */
  withComment: boolean;
  pending: boolean;
  error: Error | null;
  onDecide(decision: D, comment: string): void;
}

export function DecisionForm<D extends string>(props: DecisionFormProps<D>) {
  const { what, choices, withComment, pending, error, onDecide } = props;
  const [comment, setComment] = useState('');
  const id = useId();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    const decision = choices.find((choice) => choice.decision === submitter?.value)?.decision;
    if (decision) onDecide(decision, comment);
  };
  return (
    <form className="decide" onSubmit={submit}>
      {withComment ? (
        <label htmlFor={`${id}-comment`} className="comment">
          Comment<span className="visually-hidden"> on {what}</span> (optional)
          <input
            id={`${id}-comment`}
            type="text"
            maxLength={2000}
            value={comment}
            onChange={(event) => setComment(event.target.value)}
          />
        </label>
      ) : null}
      {choices.map((choice) => (
        <button
          key={choice.decision}
          type="submit"
          value={choice.decision}
          className={choice.secondary ? 'secondary' : undefined}
          disabled={pending}
        >
          {choice.label}
          <span className="visually-hidden"> {what}</span>
        </button>
      ))}
      {error ? <Failure error={error} title={`No decision was made on ${what}.`} /> : null}
    </form>
  );
}
