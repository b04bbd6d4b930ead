// The port installs ask through to move one install at once after a write of it (a save, a decision on
// its change, a secret stored): the sweeps (sweeps/trigger.ts) answer it and the api wires it in, so
// installs never import the layer built on top of it. Without one wired in, nothing moves at once (the
// sweeps still do).

export interface UpgradeTrigger {
  /**
   * Moves the install now when its automatic upgrade applies, or opens the platform's change when the move
   * waits for approval (docs/upgrades.md). Called once the write committed; best-effort: never throws (a
   * failure is logged with the install id and left to the next sweep). Answers whether it wrote anything.
   */
  afterWrite(installId: string): Promise<boolean>;
}

/** A deployment without the upgrades layer wired in: writes move nothing at once. */
export const NO_UPGRADE_TRIGGER: UpgradeTrigger = { afterWrite: async () => false };
