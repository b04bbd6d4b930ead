// The module's abort handler: AssemblyScript's default imports env.abort, which the platform does not
// provide. `app build` compiles with --use abort=<this function>, so an abort (a failed assertion, an
// index out of range, out of memory) ends the call as a trap the runner reports as `trapped`.

export function abortToTrap(
  message: string | null = null,
  fileName: string | null = null,
  line: u32 = 0,
  column: u32 = 0,
): void {
  unreachable();
}
