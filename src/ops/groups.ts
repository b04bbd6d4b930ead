// The `ops` command's groups and the line each shows in `ops --help`. Kept apart from the groups' code so
// that the help loads none of it (program.ts loads a group only when a command line names it).
export const GROUPS = {
  apps: 'the app catalogue: versions with their installs, blocks, operator reviews, withdraws',
  platform: 'platform versions outside a release: list, publish, withdraw, restore',
  tenants: "one tenant's operator review and quotas, and the tenants' use of a month",
  audit: 'the instance trail, newest first: operator changes and the platform’s own',
} as const;

export type GroupName = keyof typeof GROUPS;
