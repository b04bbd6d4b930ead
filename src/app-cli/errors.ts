import { UsageError } from '../cli/usage.ts';

/** A usage error of the `app` command: exit code 2. */
export class AppUsageError extends UsageError {}
