// Which version of a definition a page shows. The API answers the bodies of the published version and the
// draft only; another version is shown by its dates alone. Pure.

export interface VersionWithBody {
  version: number;
}

export interface DefinitionLike<V extends VersionWithBody> {
  published: V | null;
  draft: V | null;
}

/**
 * The version with its body a page shows: the one the URL names when the API answers its body, else (no
 * version asked for) the published one, or the draft when none is published; null when the body is not
 * answered.
 */
export function shownVersion<V extends VersionWithBody>(
  definition: DefinitionLike<V>,
  asked: number | null,
): V | null {
  if (asked === null) return definition.published ?? definition.draft;
  if (definition.published?.version === asked) return definition.published;
  if (definition.draft?.version === asked) return definition.draft;
  return null;
}
