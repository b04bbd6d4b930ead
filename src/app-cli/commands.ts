// The `app` command's commands and the line each shows in `app --help`. Kept apart from their code so that
// the help loads none of it (main.ts loads a command only when a command line names it).
export const APP_COMMANDS = {
  new: 'scaffold an app: an AssemblyScript module on the SDK, conformance samples and a test',
  build: 'compile an app, check its manifest as an upload is checked, and write the module',
  test: 'run the conformance check of an app (a directory is built first) through the real host',
  publish: 'upload a built module to the platform at API_URL and publish it (token: TOKEN or --token)',
  'vendor-double':
    'run a vendor double on 127.0.0.1 that echoes every request as JSON, or plays an identity-verification vendor (--idv)',
  'collector-double':
    'run an OpenTelemetry collector double on 127.0.0.1: OTLP/HTTP JSON in, a line per trace, GET /traces/<traceId> the span tree',
} as const;

export type AppCommandName = keyof typeof APP_COMMANDS;
