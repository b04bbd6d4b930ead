// Node marks its WASI as experimental and says so on stderr the first time `node:wasi` loads. The
// platform relies on WASI preview 1 knowingly (it is part of the module contract), so that one warning is
// dropped; every other warning reaches Node's own printer unchanged. The commands import this file before
// their module graph: Node links `node:wasi` (and warns) before any module of that graph runs.
const printers = process.listeners('warning');
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name === 'ExperimentalWarning' && warning.message.startsWith('WASI is an experimental')) return;
  for (const print of printers) print(warning);
});
