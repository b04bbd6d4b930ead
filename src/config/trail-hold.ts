/**
 * The outbound webhooks' trail reader leaves audit rows younger than this for a later pass (the spec's ten
 * seconds). WEBHOOK_TRAIL_HOLD_MS may only lower it.
 */
export const TRAIL_HOLD_MS = 10_000;
