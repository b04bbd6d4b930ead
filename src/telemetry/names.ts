// The instrumentation scope our own spans and the request histogram are made under.
export const TRACER_NAME = 'apps-platform';
