// Characters that change what a person sees without being seen: one list for what `ops` escapes and
// what a document's name may not hold. Written as the inside of a regular expression's character class.

/** The C0 controls (JSON.stringify escapes these itself). */
export const C0_CONTROLS = '\\u0000-\\u001f';

/**
 * DEL, the C1 controls, and the bidirectional marks (U+061C, U+200E, U+200F), embeddings and overrides
 * (U+202A–U+202E) and isolates (U+2066–U+2069), which reorder what is shown: `invoice\u202Etxt.exe` shows
 * as `invoiceexe.txt`. Zero-width joiners and non-joiners are not here: scripts need them, and they
 * reorder nothing.
 */
export const UNSAFE_BEYOND_C0 = '\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
