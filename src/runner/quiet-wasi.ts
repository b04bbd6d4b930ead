// Node marks its WASI as experimental and says so on stderr the first time a module uses it. The
// platform relies on WASI preview 1 knowingly (it is part of the module contract), so that one warning is
// dropped; every other warning goes through unchanged.
const emitWarning = process.emitWarning.bind(process);

process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  const text = typeof warning === 'string' ? warning : warning.message;
  if (text.startsWith('WASI is an experimental feature')) return;
  return (emitWarning as (...args: unknown[]) => void)(warning, ...rest);
}) as typeof process.emitWarning;
