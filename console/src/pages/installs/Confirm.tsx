// An action that asks once more before it runs: the button shows a confirm and a cancel in its place
// (no window.confirm: a dialog the page cannot label or style).
import { useState } from 'react';

export interface ConfirmProps {
  /** The button's text: "Remove install". */
  label: string;
  /** What the confirm says: "Remove kyc with its secrets?" */
  question: string;
  /** The confirm's text: "Yes, remove". */
  confirm: string;
  pending: boolean;
  onConfirm: () => void;
  danger?: boolean;
}

export function Confirm({ label, question, confirm, pending, onConfirm, danger }: ConfirmProps) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className={danger ? 'danger' : 'secondary'} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <fieldset className="confirm">
      <legend>{question}</legend>
      <button
        type="button"
        className={danger ? 'danger' : undefined}
        disabled={pending}
        onClick={() => {
          onConfirm();
          setAsking(false);
        }}
      >
        {confirm}
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </fieldset>
  );
}
