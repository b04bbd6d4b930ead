// Commands whose code loads only when a command line names them: `ops --help` and `app --help` list every
// command from a line of text each, and `ops audit` loads the audit command alone (with the database code
// behind it). The command's own help (`ops audit --help`) loads it as running it would.
import type { Command } from 'commander';

/**
 * The command a command line names among `names`, or null: its first word that is not an option
 * (`ops apps list`), or the word after `help` (`ops help apps`). Pure.
 */
export function namedCommand(argv: readonly string[], names: readonly string[]): string | null {
  const words = argv.filter((arg) => !arg.startsWith('-'));
  const word = words[0] === 'help' ? words[1] : words[0];
  return word !== undefined && names.includes(word) ? word : null;
}

/**
 * Adds every command of `summaries` to `program`, in order: the one `argv` names through `register`
 * (which loads its code and adds it whole), each other as its name and its line of --help.
 */
export async function addLazyCommands<Name extends string>(
  program: Command,
  summaries: Readonly<Record<Name, string>>,
  argv: readonly string[],
  register: (name: Name) => Promise<void>,
): Promise<void> {
  const names = Object.keys(summaries) as Name[];
  const named = namedCommand(argv, names);
  for (const name of names) {
    if (name === named) await register(name);
    else program.command(name).summary(summaries[name]);
  }
}
